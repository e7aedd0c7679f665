package exposure

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// DefaultTunnelWait is how long Gatehouse reads a tunnel program's output
// for its public URL.
const DefaultTunnelWait = 10 * time.Second

// DefaultTunnelSettle is how long a tunnel program that printed its URL
// is watched before the exposure opens: one that exits in that time
// (having printed an error with the URL it would have served, say)
// carries nothing, and the exposure does not open.
const DefaultTunnelSettle = time.Second

// lastLineWait bounds the wait for a program's last line after it exits
// (a child it left behind may hold the pipe open).
const lastLineWait = time.Second

// TunnelInfo is what the person sees of the tunnel program.
type TunnelInfo struct {
	Command []string `json:"command"`
	PID     int      `json:"pid"`
	// URL is the first http(s) URL the program printed, "" if none.
	URL string `json:"url,omitempty"`
	// Note says what Gatehouse could not learn, in a sentence.
	Note string `json:"note,omitempty"`
}

var urlPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`https?://[^\s"'<>]+`) })

// tunnel is a running tunnel program.
type tunnel struct {
	cmd    *exec.Cmd
	exited chan struct{}
	info   TunnelInfo
}

// startTunnel runs argv with {addr}, {host} and {port} replaced by the
// exposure's listener, and reads its stdout and stderr for a public URL
// for up to wait. A program that exits before printing one is an error:
// the exposure it was meant to carry does not open. One that runs on
// without printing a URL is kept, with a note (the person's own tunnel
// may know its address without saying it).
func startTunnel(argv []string, host, port string, wait, settle time.Duration) (*tunnel, error) {
	if len(argv) == 0 {
		return nil, errors.New("the tunnel command is empty")
	}
	args := make([]string, len(argv))
	r := strings.NewReplacer("{addr}", host+":"+port, "{host}", host, "{port}", port)
	for i, a := range argv {
		args[i] = r.Replace(a)
	}
	cmd := exec.Command(args[0], args[1:]...)
	// Its own process group, so stopping it stops what it started.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// One pipe for both streams (the URL may come on either), ours
	// rather than StdoutPipe's, which Wait would close under the reader.
	out, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start the tunnel: %w", err)
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	err = cmd.Start()
	pw.Close()
	if err != nil {
		out.Close()
		return nil, fmt.Errorf("the tunnel command %s could not start: %w", args[0], err)
	}
	t := &tunnel{cmd: cmd, exited: make(chan struct{}), info: TunnelInfo{Command: args, PID: cmd.Process.Pid}}
	found := make(chan string, 1)
	scanned := make(chan struct{})
	var last lastLine
	go func() { scanURL(out, found, &last); out.Close(); close(scanned) }()
	go func() { cmd.Wait(); close(t.exited) }()
	exitedAtOnce := func() error {
		// Its last words are what the person needs; they may still be
		// in the pipe when the exit is seen.
		select {
		case <-scanned:
		case <-time.After(lastLineWait):
		}
		msg := fmt.Sprintf("the tunnel command %s exited at once (%s) without carrying the exposure", args[0], cmd.ProcessState)
		if l := last.get(); l != "" {
			msg += "; its last line was: " + l
		}
		return errors.New(msg)
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case u := <-found:
		t.info.URL = strings.TrimRight(u, "/.,;")
		// A URL and then an exit (an error that quotes the address it
		// would have served) is still no tunnel.
		select {
		case <-t.exited:
			return nil, exitedAtOnce()
		case <-time.After(settle):
		}
	case <-t.exited:
		return nil, exitedAtOnce()
	case <-timer.C:
		t.info.Note = fmt.Sprintf("the tunnel command printed no URL within %s; point your device at the address your tunnel gives", wait)
	}
	return t, nil
}

// scanURL sends the first URL seen on r, keeps the last line, and keeps
// draining so the program never blocks on a full pipe.
func scanURL(r io.Reader, found chan<- string, last *lastLine) {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 64<<10), 64<<10)
	sent := false
	for s.Scan() {
		line := s.Text()
		last.set(line)
		if !sent {
			if u := urlPattern().FindString(line); u != "" {
				found <- u
				sent = true
			}
		}
	}
}

type lastLine struct {
	mu sync.Mutex
	s  string
}

func (l *lastLine) set(s string) {
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	l.mu.Lock()
	l.s = s
	l.mu.Unlock()
}

func (l *lastLine) get() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.s
}

// stop ends the tunnel's process group: TERM, then KILL after a grace.
func (t *tunnel) stop(ctx context.Context) {
	pg := -t.cmd.Process.Pid
	_ = syscall.Kill(pg, syscall.SIGTERM)
	grace := time.NewTimer(2 * time.Second)
	defer grace.Stop()
	select {
	case <-t.exited:
	case <-grace.C:
		_ = syscall.Kill(pg, syscall.SIGKILL)
		<-t.exited
	case <-ctx.Done():
		_ = syscall.Kill(pg, syscall.SIGKILL)
	}
}

// portOf is addr's port as text.
func portOf(port int) string { return strconv.Itoa(port) }
