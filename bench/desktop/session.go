package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/gatehouse-dev/gatehouse/app/desktop"
)

// session is a private X display and session bus.
type session struct {
	c       config
	dir     string
	display string
	bus     string
	procs   []*exec.Cmd
}

func startSession(ctx context.Context, c config) (*session, error) {
	for _, tool := range []string{"Xvfb", "dbus-daemon", "xdotool"} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, fmt.Errorf("%s is missing: apt-get install -y xvfb dbus xdotool", tool)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(c.bin), "gatehouse-desktop")); err != nil {
		return nil, fmt.Errorf("no gatehouse-desktop next to %s: %w (build both with `make binaries`)", c.bin, err)
	}
	dir, err := os.MkdirTemp("", "gatehouse-bench-desktop-")
	if err != nil {
		return nil, err
	}
	s := &session{c: c, dir: dir}
	if s.display, err = s.startFD3(ctx, "Xvfb", "-displayfd", "3", "-screen", "0", "1280x800x24", "-nolisten", "tcp"); err != nil {
		s.close()
		return nil, err
	}
	s.display = ":" + s.display
	if s.bus, err = s.startFD3(ctx, "dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=3"); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// startFD3 starts a helper and returns the first line it writes on fd 3.
func (s *session) startFD3(ctx context.Context, name string, args ...string) (string, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return "", err
	}
	defer r.Close()
	cmd := exec.Command(name, args...)
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		w.Close()
		return "", fmt.Errorf("start %s: %w", name, err)
	}
	w.Close()
	s.procs = append(s.procs, cmd)
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(r).ReadString('\n')
		line <- strings.TrimSpace(l)
	}()
	select {
	case l := <-line:
		if l == "" {
			return "", fmt.Errorf("%s printed nothing on fd 3", name)
		}
		return l, nil
	case <-time.After(30 * time.Second):
		return "", fmt.Errorf("%s not ready after 30s", name)
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func (s *session) close() {
	for i := len(s.procs) - 1; i >= 0; i-- {
		p := s.procs[i]
		_ = p.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { p.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = p.Process.Kill()
		}
	}
	if !s.c.keep {
		os.RemoveAll(s.dir)
	}
}

func (s *session) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XAUTHORITY", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "DISPLAY="+s.display, "DBUS_SESSION_BUS_ADDRESS="+s.bus,
		"XDG_CONFIG_HOME="+filepath.Join(s.dir, "config"), "XDG_DATA_HOME="+filepath.Join(s.dir, "data"), "XDG_CACHE_HOME="+filepath.Join(s.dir, "cache"))
}

// app is a running `gatehouse desktop --start-hidden`.
type app struct {
	s    *session
	cmd  *exec.Cmd
	data string
	log  logBuf
	bus  *dbus.Conn
}

type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuf) since(off int) (string, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()[off:], l.b.Len()
}

func (s *session) startApp(ctx context.Context) (*app, error) {
	a := &app{s: s, data: filepath.Join(s.dir, "data", "gatehouse")}
	ws := filepath.Join(s.dir, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return nil, err
	}
	a.cmd = exec.Command(s.c.bin, "desktop", "--start-hidden", "--window-release", s.c.release.String(),
		"--window-spare="+strconv.FormatBool(s.c.spare), "--listen", "127.0.0.1:0", "--data", a.data, "--workspace", ws)
	a.cmd.Env = s.env()
	a.cmd.Stdout, a.cmd.Stderr = &a.log, &a.log
	if err := a.cmd.Start(); err != nil {
		return nil, err
	}
	if _, err := a.waitLog(ctx, 0, regexp.MustCompile(`msg="tray process started"`), 60*time.Second); err != nil {
		a.stop()
		return nil, err
	}
	conn, err := dbus.Connect(s.bus)
	if err != nil {
		a.stop()
		return nil, err
	}
	a.bus = conn
	return a, nil
}

func (a *app) stop() {
	if a.bus != nil {
		a.bus.Close()
	}
	_ = a.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { a.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = a.cmd.Process.Kill()
	}
}

// waitLog waits for re in the log after offset off and returns the match.
func (a *app) waitLog(ctx context.Context, off int, re *regexp.Regexp, timeout time.Duration) ([]string, error) {
	deadline := time.Now().Add(timeout)
	for {
		s, _ := a.log.since(off)
		if m := re.FindStringSubmatch(s); m != nil {
			return m, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("no %q in the app's log within %v; log since:\n%s", re, timeout, s)
		}
		if err := sleep(ctx, 5*time.Millisecond); err != nil {
			return nil, err
		}
	}
}

func (a *app) offset() int { _, n := a.log.since(0); return n }

// send hands args to the running app, as a second launch or the tray does.
func (a *app) send(args ...string) error {
	name, path := desktop.InstanceBus(a.data)
	q := make([]string, len(args))
	for i, x := range args {
		q[i] = strconv.Quote(x)
	}
	msg := `{"Args":[` + strings.Join(q, ",") + `]}`
	return a.bus.Object(name, dbus.ObjectPath(path)).Call(name+".SendMessage", 0, msg).Err
}

var shownRe = regexp.MustCompile(`msg="window shown" took_ms=(\d+)`)

// show asks for the window and returns the app's own measure: from the
// request to the window visible with the page's app shell rendered.
func (a *app) show(ctx context.Context) (time.Duration, error) {
	off := a.offset()
	if err := a.send(); err != nil {
		return 0, err
	}
	m, err := a.waitLog(ctx, off, shownRe, 60*time.Second)
	if err != nil {
		return 0, err
	}
	n, _ := strconv.Atoi(m[1])
	return time.Duration(n) * time.Millisecond, nil
}

// prepare asks for the window hidden (what the tray does when its menu
// opens) and waits until its page has rendered.
func (a *app) prepare(ctx context.Context) error {
	off := a.offset()
	if err := a.send("--prepare-window"); err != nil {
		return err
	}
	_, err := a.waitLog(ctx, off, regexp.MustCompile(`msg="desktop page" title=Gatehouse app=true`), 60*time.Second)
	return err
}

// hide closes the window with Ctrl+W, as a person would.
func (a *app) hide(ctx context.Context) error {
	off := a.offset()
	out, err := a.xdotool("search", "--onlyvisible", "--class", "gatehouse")
	if err != nil {
		return err
	}
	ids := strings.Fields(out)
	if len(ids) == 0 {
		return fmt.Errorf("no visible Gatehouse window")
	}
	for _, id := range ids {
		a.xdotool("windowfocus", id)
	}
	time.Sleep(200 * time.Millisecond)
	if _, err := a.xdotool("key", "--clearmodifiers", "ctrl+w"); err != nil {
		return err
	}
	_, err = a.waitLog(ctx, off, regexp.MustCompile(`msg="window hidden; Gatehouse keeps running`), 10*time.Second)
	return err
}

func (a *app) hideAndRelease(ctx context.Context) error {
	off := a.offset()
	if err := a.hide(ctx); err != nil {
		return err
	}
	_, err := a.waitLog(ctx, off, regexp.MustCompile(`msg="window process ended"`), a.s.c.release+30*time.Second)
	return err
}

func (a *app) xdotool(args ...string) (string, error) {
	cmd := exec.Command("xdotool", args...)
	cmd.Env = a.s.env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("xdotool %v: %v: %s", args, err, out)
	}
	return string(out), nil
}
