//go:build integration

package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/prop"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
	"github.com/gatehouse-dev/gatehouse/app/tray"
	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

// The tray is in the small gatehouse: on Linux it speaks
// StatusNotifierItem over D-Bus in pure Go, with no GTK.
func trayBinary(t *testing.T) string { return clitest.Binary(t) }

func requireTools(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			t.Fatalf("%s is not installed; the tray test needs it (apt-get install -y dbus dbus-x11 xvfb)", n)
		}
	}
}

// startWithFD3 starts cmd with a pipe on fd 3 and returns its first line
// (Xvfb -displayfd and dbus-daemon --print-address both write there).
func startWithFD3(t *testing.T, what string, cmd *exec.Cmd) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	cmd.ExtraFiles = []*os.File{w}
	cmd.Stdout, cmd.Stderr = &log, &log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", what, err)
	}
	w.Close()
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { clitest.Terminate(cmd.Process, exited, 5*time.Second) })
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(r).ReadString('\n')
		r.Close()
		line <- strings.TrimSpace(s)
	}()
	select {
	case s := <-line:
		if s == "" {
			<-exited
			t.Fatalf("%s printed nothing on fd 3 and exited: %s", what, log.String())
		}
		return s
	case <-time.After(30 * time.Second):
		t.Fatalf("%s not ready after 30s: %s", what, log.String())
	}
	return ""
}

// snWatcher is a minimal org.kde.StatusNotifierWatcher: enough for
// the tray to register its item (a real desktop's panel
// plays this part).
type snWatcher struct {
	mu    sync.Mutex
	props *prop.Properties
	items chan snItem
}

type snItem struct {
	Bus  string
	Path dbus.ObjectPath
}

func (w *snWatcher) RegisterStatusNotifierItem(sender dbus.Sender, service string) *dbus.Error {
	it := snItem{Bus: string(sender), Path: dbus.ObjectPath(service)}
	if !strings.HasPrefix(service, "/") {
		it = snItem{Bus: service, Path: "/StatusNotifierItem"}
	}
	w.mu.Lock()
	if w.props != nil {
		v, _ := w.props.Get("org.kde.StatusNotifierWatcher", "RegisteredStatusNotifierItems")
		list, _ := v.Value().([]string)
		w.props.SetMust("org.kde.StatusNotifierWatcher", "RegisteredStatusNotifierItems", append(list, it.Bus+string(it.Path)))
	}
	w.mu.Unlock()
	select {
	case w.items <- it:
	default:
	}
	return nil
}

func (w *snWatcher) RegisterStatusNotifierHost(string) *dbus.Error { return nil }

func exportWatcher(t *testing.T, conn *dbus.Conn) *snWatcher {
	t.Helper()
	const iface, path = "org.kde.StatusNotifierWatcher", dbus.ObjectPath("/StatusNotifierWatcher")
	w := &snWatcher{items: make(chan snItem, 4)}
	if err := conn.Export(w, path, iface); err != nil {
		t.Fatal(err)
	}
	props, err := prop.Export(conn, path, prop.Map{iface: {
		"IsStatusNotifierHostRegistered": {Value: true, Emit: prop.EmitTrue},
		"ProtocolVersion":                {Value: int32(0), Emit: prop.EmitTrue},
		"RegisteredStatusNotifierItems":  {Value: []string{}, Emit: prop.EmitTrue},
	}})
	if err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	w.props = props
	w.mu.Unlock()
	reply, err := conn.RequestName(iface, dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("claim %s: %v %v", iface, reply, err)
	}
	return w
}

// trayItem reads the tray's StatusNotifierItem and drives its menu over
// com.canonical.dbusmenu, as a desktop panel does.
type trayItem struct {
	t    *testing.T
	conn *dbus.Conn
	it   snItem
	menu dbus.ObjectPath
}

func (ti *trayItem) prop(name string) (any, error) {
	v, err := ti.conn.Object(ti.it.Bus, ti.it.Path).GetProperty("org.kde.StatusNotifierItem." + name)
	if err != nil {
		return nil, err
	}
	return v.Value(), nil
}

type menuEntry struct {
	ID      int32
	Label   string
	Enabled bool
	Visible bool
}

func (ti *trayItem) layout() ([]menuEntry, error) {
	var rev uint32
	var root struct {
		ID       int32
		Props    map[string]dbus.Variant
		Children []dbus.Variant
	}
	call := ti.conn.Object(ti.it.Bus, ti.menu).Call("com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(-1), []string{})
	if err := call.Store(&rev, &root); err != nil {
		return nil, err
	}
	var out []menuEntry
	var walk func(children []dbus.Variant)
	walk = func(children []dbus.Variant) {
		for _, c := range children {
			fields, ok := c.Value().([]any)
			if !ok || len(fields) != 3 {
				continue
			}
			e := menuEntry{Enabled: true, Visible: true}
			e.ID, _ = fields[0].(int32)
			props, _ := fields[1].(map[string]dbus.Variant)
			if v, ok := props["label"]; ok {
				e.Label, _ = v.Value().(string)
			}
			if v, ok := props["enabled"]; ok {
				e.Enabled, _ = v.Value().(bool)
			}
			if v, ok := props["visible"]; ok {
				e.Visible, _ = v.Value().(bool)
			}
			out = append(out, e)
			if sub, ok := fields[2].([]dbus.Variant); ok {
				walk(sub)
			}
		}
	}
	walk(root.Children)
	return out, nil
}

// entry waits until the menu has a visible item labelled label.
func (ti *trayItem) entry(label string) menuEntry {
	ti.t.Helper()
	var found menuEntry
	waitfor.ForState(ti.t, 15*time.Second, fmt.Sprintf("a visible %q item in the tray menu", label), func() (bool, string) {
		menu, err := ti.layout()
		for _, e := range menu {
			if e.Label == label && e.Visible {
				found = e
				return true, ""
			}
		}
		return false, fmt.Sprintf("menu %+v (err %v)", menu, err)
	})
	return found
}

func (ti *trayItem) click(label string) {
	ti.t.Helper()
	e := ti.entry(label)
	if !e.Enabled {
		ti.t.Fatalf("menu item %q is disabled", label)
	}
	call := ti.conn.Object(ti.it.Bus, ti.menu).Call("com.canonical.dbusmenu.Event", 0, e.ID, "clicked", dbus.MakeVariant(""), uint32(time.Now().Unix()))
	if call.Err != nil {
		ti.t.Fatalf("click %q: %v", label, call.Err)
	}
}

// shown is what the item shows: its title and which of our icons (the
// item's pixmap, ARGB32 in network byte order, against each icon's PNG).
func (ti *trayItem) shown() (title string, icon string) {
	t, _ := ti.prop("Title")
	title, _ = t.(string)
	v, err := ti.prop("IconPixmap")
	icon = fmt.Sprintf("unknown icon (%v)", err)
	var pix []struct {
		W, H int32
		Pix  []byte
	}
	if err == nil && dbus.Store([]any{v}, &pix) == nil && len(pix) > 0 {
		for _, i := range []tray.Icon{tray.IconIdle, tray.IconActive, tray.IconWaiting, tray.IconPaused, tray.IconKilled, tray.IconOffline} {
			if bytes.Equal(pix[0].Pix, argb(ti.t, i.PNG())) {
				icon = i.String()
			}
		}
	}
	return title, icon
}

// argb is a PNG as StatusNotifierItem pixels: A, R, G, B per pixel.
func argb(t *testing.T, b []byte) []byte {
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("decode icon: %v", err)
	}
	r := img.Bounds()
	out := make([]byte, 0, r.Dx()*r.Dy()*4)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			// The low byte of each 16-bit channel, as systray packs it.
			rr, gg, bb, aa := img.At(x, y).RGBA()
			out = append(out, byte(aa), byte(rr), byte(gg), byte(bb))
		}
	}
	return out
}

// waitShown waits until the tray shows icon and a title containing text.
func (ti *trayItem) waitShown(icon tray.Icon, text string) {
	ti.t.Helper()
	waitfor.ForState(ti.t, 15*time.Second, fmt.Sprintf("the tray to show the %v icon and a title containing %q", icon, text), func() (bool, string) {
		title, got := ti.shown()
		return got == icon.String() && strings.Contains(title, text), fmt.Sprintf("%s with title %q", got, title)
	})
}

// sleepProc is one process, identified by pid and start time.
type sleepProc struct {
	pid   int
	start string
}

type procInfo struct {
	ppid  int
	state string
	start string
}

func readProc(pid int) (procInfo, bool) {
	f, ok := procStat(pid) // state ppid pgrp ... starttime is field 22 of stat, 20th here
	if !ok || len(f) < 20 {
		return procInfo{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	return procInfo{ppid: ppid, state: f[0], start: f[19]}, true
}

// sleepsUnder lists the live `sleep 1000` processes that descend from pid
// (other tests on this machine may run their own).
func sleepsUnder(root int) []sleepProc {
	ents, _ := os.ReadDir("/proc")
	procs := map[int]procInfo{}
	var sleeps []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		p, ok := readProc(pid)
		if !ok || p.state == "Z" {
			continue
		}
		procs[pid] = p
		if cl, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil && string(cl) == "sleep\x001000\x00" {
			sleeps = append(sleeps, pid)
		}
	}
	var out []sleepProc
	for _, pid := range sleeps {
		for p, n := pid, 0; p > 1 && n < 64; p, n = procs[p].ppid, n+1 {
			if p == root {
				out = append(out, sleepProc{pid, procs[pid].start})
				break
			}
		}
	}
	return out
}

func alive(ps []sleepProc) []sleepProc {
	var out []sleepProc
	for _, p := range ps {
		if info, ok := readProc(p.pid); ok && info.start == p.start && info.state != "Z" {
			out = append(out, p)
		}
	}
	return out
}

type trayOutcome struct {
	res *mcp.CallToolResult
	err error
}

// TestTrayKillSwitch runs the real `gatehouse tray` on a private session
// bus and X server, plays the desktop panel over D-Bus, and stops a
// sandboxed process tree with the tray's "Stop all agents now".
func TestTrayKillSwitch(t *testing.T) {
	requireTools(t, "dbus-daemon", "Xvfb")
	bin := trayBinary(t)
	d := clitest.StartAsk(t)
	_, body := d.Request("GET", "/api/v1/status", nil, d.Control())
	var st struct {
		PID     int    `json:"pid"`
		Sandbox string `json:"sandbox"`
	}
	if err := json.Unmarshal([]byte(body), &st); err != nil || st.PID == 0 {
		t.Fatalf("status: %v %s", err, body)
	}

	display := ":" + startWithFD3(t, "Xvfb", exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "640x480x24", "-nolisten", "tcp"))
	busAddr := startWithFD3(t, "dbus-daemon", exec.Command("dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=3"))
	conn, err := dbus.Connect(busAddr)
	if err != nil {
		t.Fatalf("connect to the test bus: %v", err)
	}
	defer conn.Close()
	w := exportWatcher(t, conn)

	// A browser stand-in for "Open Gatehouse".
	fakeBin := t.TempDir()
	opened := filepath.Join(fakeBin, "opened")
	if err := os.WriteFile(filepath.Join(fakeBin, "xdg-open"), []byte("#!/bin/sh\nprintf '%s\\n' \"$1\" >> "+opened+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	runtimeDir := t.TempDir()
	os.Chmod(runtimeDir, 0o700)
	var env []string
	for _, kv := range d.Env() {
		if !strings.HasPrefix(kv, "WAYLAND_DISPLAY=") && !strings.HasPrefix(kv, "DISPLAY=") && !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	env = append(env, "DISPLAY="+display, "DBUS_SESSION_BUS_ADDRESS="+busAddr, "GDK_BACKEND=x11",
		"NO_AT_BRIDGE=1", "GSETTINGS_BACKEND=memory", "XDG_RUNTIME_DIR="+runtimeDir,
		"PATH="+fakeBin+string(os.PathListSeparator)+os.Getenv("PATH"))

	var trayLog clitest.LockedBuffer
	trayCmd := exec.Command(bin, "tray", "--data", d.Data, "--log-level", "debug")
	trayCmd.Env = env
	trayCmd.Stdout, trayCmd.Stderr = &trayLog, &trayLog
	trayCmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	trayCmd.WaitDelay = 5 * time.Second // a helper GTK spawned may hold the output pipe
	if err := trayCmd.Start(); err != nil {
		t.Fatalf("start tray: %v", err)
	}
	trayExited := make(chan struct{})
	var trayErr error
	go func() { trayErr = trayCmd.Wait(); close(trayExited) }()
	t.Cleanup(func() {
		select {
		case <-trayExited:
		default:
			clitest.Terminate(trayCmd.Process, trayExited, 10*time.Second)
		}
		if t.Failed() || testing.Verbose() {
			t.Logf("tray log:\n%s", trayLog.String())
		}
	})

	var it snItem
	select {
	case it = <-w.items:
	case <-trayExited:
		t.Fatalf("tray exited before registering its icon: %v\n%s", trayErr, trayLog.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("the tray never registered with the StatusNotifierWatcher:\n%s", trayLog.String())
	}
	ti := &trayItem{t: t, conn: conn, it: it}
	m, err := ti.prop("Menu")
	if err != nil {
		t.Fatalf("item %v has no Menu: %v", it, err)
	}
	ti.menu, _ = m.(dbus.ObjectPath)
	t.Logf("tray item %s%s, menu %s, sandbox %s", it.Bus, it.Path, ti.menu, st.Sandbox)
	ti.waitShown(tray.IconIdle, "Gatehouse: no agents active")
	for _, l := range []string{tray.LabelOpen, tray.LabelPause, tray.LabelKill, tray.LabelQuit} {
		ti.entry(l)
	}

	// An agent runs a sandboxed process tree: sh, its sleep child and
	// grandchild-level background sleep.
	s := d.MCP(t.Context(), "tray-victim")
	running := make(chan trayOutcome, 1)
	go func() {
		ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
		defer cancel()
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"argv": []string{"sh", "-c", "sleep 1000 & sleep 1000"}, "timeout_s": 900}})
		running <- trayOutcome{res, err}
	}()
	a := d.WaitApproval(clitest.CardWait)
	ti.waitShown(tray.IconWaiting, "1 agent active, 1 waiting for you")
	if code := d.Decide(a.ID, "allow", "once", ""); code != 200 {
		t.Fatalf("approve: %d", code)
	}
	clitest.WaitFor(t, 30*time.Second, "the command to start", func() bool { return len(d.Events("kind=exec.started")) > 0 })
	var victims []sleepProc
	waitfor.ForState(t, 15*time.Second, fmt.Sprintf("2 sandboxed `sleep 1000` under the daemon (pid %d)", st.PID), func() (bool, string) {
		victims = sleepsUnder(st.PID)
		all, _ := pgrep("sleep 1000")
		return len(victims) >= 2, fmt.Sprintf("found %v; all: %s", victims, all)
	})
	ti.waitShown(tray.IconActive, "Gatehouse: 1 agent active")

	// The person presses the kill switch in the tray.
	clicked := time.Now()
	ti.click(tray.LabelKill)
	waitfor.ForState(t, 2*time.Second-time.Since(clicked), "the sandboxed processes to end within 2s of the tray's kill switch", func() (bool, string) {
		left, under := alive(victims), sleepsUnder(st.PID)
		out, _ := pgrep("sleep 1000")
		return len(left) == 0 && len(under) == 0, fmt.Sprintf("surviving %v %v\n%s", left, under, out)
	})
	t.Logf("kill switch: the process tree was gone %v after the click", time.Since(clicked).Round(time.Millisecond))

	select {
	case o := <-running:
		if o.err == nil && !o.res.IsError {
			t.Fatalf("the killed call succeeded: %s", clitest.Text(t, o.res))
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the MCP call still runs 20s after the kill switch")
	}
	waitfor.ForState(t, 10*time.Second, `a system.kill with reason "killed by human via tray" in the audit`, func() (bool, string) {
		kills := d.Events("kind=system.kill")
		var reason string
		for _, e := range kills {
			b, _ := json.Marshal(e["payload"])
			var p struct {
				Reason string `json:"reason"`
			}
			json.Unmarshal(b, &p)
			reason = p.Reason
		}
		return strings.Contains(reason, "killed by human via tray"), fmt.Sprintf("%v", kills)
	})
	ti.waitShown(tray.IconKilled, "all agents stopped")
	ti.entry(tray.LabelResume)

	// New sessions are refused until the person resumes.
	// (Stateful clients cannot connect; stateless ones get no tool call.)
	c := mcp.NewClient(&mcp.Implementation{Name: "after-tray-kill", Version: "1"}, nil)
	if cs, err := c.Connect(t.Context(), d.MCPTransport(), &mcp.ClientSessionOptions{ProtocolVersion: clitest.StatefulProtocol}); err == nil {
		cs.Close()
		t.Fatal("a new MCP session was accepted while killed")
	}
	if cs, err := c.Connect(t.Context(), d.MCPTransport(), &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"}); err == nil {
		r, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "list_dir", Arguments: map[string]any{}})
		cs.Close()
		if err == nil && !r.IsError {
			t.Fatal("a stateless tool call was accepted while killed")
		}
	}
	if out, errOut, code := d.CLI(t.Context(), "resume"); code != 0 {
		t.Fatalf("resume: %s %s", out, errOut)
	}
	ti.waitShown(tray.IconIdle, "no agents active")
	ti.entry(tray.LabelPause)
	s2 := d.MCP(t.Context(), "after-resume")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	res, err := s2.CallTool(ctx, &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"argv": []string{"true"}}})
	cancel()
	if err != nil || res.IsError {
		t.Fatalf("call after resume: %v %+v", err, res)
	}
	s2.Close()

	// Pause and resume from the tray.
	daemonState := func() (paused, killed bool) {
		_, body := d.Request("GET", "/api/v1/status", nil, d.Control())
		var st struct {
			State struct{ Paused, Killed bool }
		}
		json.Unmarshal([]byte(body), &st)
		return st.State.Paused, st.State.Killed
	}
	waitDaemon := func(wantPaused bool) {
		t.Helper()
		clitest.WaitFor(t, 10*time.Second, fmt.Sprintf("the daemon to be paused=%v after the tray click", wantPaused), func() bool {
			p, _ := daemonState()
			return p == wantPaused
		})
	}
	ti.click(tray.LabelPause)
	waitDaemon(true)
	ti.waitShown(tray.IconPaused, "paused")
	ti.click(tray.LabelResume)
	waitDaemon(false)
	ti.waitShown(tray.IconIdle, "no agents active")
	if events := d.Events("kind=system.pause"); len(events) == 0 {
		t.Fatal("no system.pause in the audit after the tray's pause")
	}

	// Open Gatehouse hands a fresh login link to the browser.
	ti.click(tray.LabelOpen)
	var link string
	clitest.WaitFor(t, 15*time.Second, "Open Gatehouse to hand the browser a link", func() bool {
		b, _ := os.ReadFile(opened)
		link = strings.TrimSpace(string(b))
		return link != ""
	})
	if !strings.HasPrefix(link, "http://") || !strings.Contains(link, "#") {
		t.Fatalf("Open Gatehouse opened %q, want a login link", link)
	}

	// The daemon goes away and comes back; the tray follows.
	d.Signal(syscall.SIGTERM, 15*time.Second)
	ti.waitShown(tray.IconOffline, "daemon not running")
	d.Restart()
	ti.waitShown(tray.IconIdle, "no agents active")

	// Quit closes the tray, and only the tray.
	ti.click(tray.LabelQuit)
	select {
	case <-trayExited:
		if trayErr != nil {
			t.Fatalf("tray quit with %v:\n%s", trayErr, trayLog.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("tray still runs 10s after Quit")
	}
	if _, body := d.Request("GET", "/healthz", nil, nil); body != "ok" {
		t.Fatalf("daemon unhealthy after the tray quit: %q", body)
	}
}
