package tray

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/client"
	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

// fakeDaemon answers the control API on DIR/control.sock.
type fakeDaemon struct {
	t   *testing.T
	dir string
	srv *http.Server

	mu        sync.Mutex
	status    Status
	posts     []string      // "path body"
	slowStat  chan struct{} // while non-nil, status requests hang until closed
	refuseAll bool
	hanging   atomic.Int32 // status requests that began hanging on slowStat
}

func newFakeDaemon(t *testing.T) *fakeDaemon {
	dir, err := os.MkdirTemp("", "tray-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	f := &fakeDaemon{t: t, dir: dir}
	f.start()
	return f
}

func (f *fakeDaemon) start() {
	l, err := net.Listen("unix", client.Socket(f.dir))
	if err != nil {
		f.t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/status", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		slow, st := f.slowStat, f.status
		f.mu.Unlock()
		if slow != nil {
			f.hanging.Add(1)
			select {
			case <-slow:
			case <-r.Context().Done():
				return
			}
		}
		json.NewEncoder(w).Encode(st)
	})
	sw := func(w http.ResponseWriter, r *http.Request) {
		var body map[string]string
		json.NewDecoder(r.Body).Decode(&body)
		b, _ := json.Marshal(body)
		f.mu.Lock()
		defer f.mu.Unlock()
		f.posts = append(f.posts, r.URL.Path+" "+string(b))
		if f.refuseAll {
			w.WriteHeader(http.StatusConflict)
			json.NewEncoder(w).Encode(map[string]string{"error": "no, not now"})
			return
		}
		switch r.URL.Path {
		case PathKill:
			f.status.State.Killed, f.status.PendingApprovals = true, 0
		case PathPause:
			f.status.State.Paused = true
		case PathResume:
			f.status.State.Paused, f.status.State.Killed = false, false
		}
		json.NewEncoder(w).Encode(map[string]any{"killed_sessions": 1, "state": f.status.State})
	}
	for _, p := range []string{PathKill, PathPause, PathResume} {
		mux.HandleFunc("POST "+p, sw)
	}
	f.srv = &http.Server{Handler: mux}
	go f.srv.Serve(l)
	f.t.Cleanup(f.stop)
}

func (f *fakeDaemon) stop() {
	f.srv.Close()
	os.Remove(client.Socket(f.dir))
}

func (f *fakeDaemon) set(fn func(*Status)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(&f.status)
}

func (f *fakeDaemon) postsSoFar() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.posts...)
}

// views records what the GUI would show.
type views struct {
	mu sync.Mutex
	vs []View
}

func (v *views) apply(x View) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.vs = append(v.vs, x)
}

func (v *views) last() View {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.vs) == 0 {
		return View{}
	}
	return v.vs[len(v.vs)-1]
}

func (v *views) waitFor(t *testing.T, what string, ok func(View) bool) View {
	t.Helper()
	var l View
	waitfor.ForState(t, 10*time.Second, "the tray to show "+what, func() (bool, string) {
		l = v.last()
		return ok(l), fmt.Sprintf("view %+v", l)
	})
	return l
}

func startController(t *testing.T, dir string) (*controller, *views) {
	v := &views{}
	c := newController(Options{
		Client:    client.New(dir),
		Dial:      func() *client.Client { return client.New(dir) },
		PollEvery: 20 * time.Millisecond,
	}, v.apply)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	c.Show()
	go func() { c.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return c, v
}

func TestControllerFollowsDaemon(t *testing.T) {
	f := newFakeDaemon(t)
	f.set(func(s *Status) { s.State.Active, s.PendingApprovals = 2, 1 })
	_, v := startController(t, f.dir)
	v.mu.Lock()
	first := v.vs[0]
	v.mu.Unlock()
	if first.Icon != IconOffline || !strings.Contains(first.Title, "connecting") {
		t.Fatalf("first view %+v, want connecting", first)
	}
	v.waitFor(t, "2 active, 1 waiting", func(x View) bool {
		return x.Icon == IconWaiting && x.Title == "Gatehouse: 2 agents active, 1 waiting for you"
	})
	f.set(func(s *Status) { s.PendingApprovals = 0 })
	v.waitFor(t, "active", func(x View) bool { return x.Icon == IconActive })

	// The daemon goes away and comes back: the tray says so and recovers.
	f.stop()
	v.waitFor(t, "daemon not running", func(x View) bool {
		return x.Icon == IconOffline && x.Title == "Gatehouse: "+WhyNotRunning && !x.PauseEnabled
	})
	f.set(func(s *Status) { s.State.Active = 0 })
	f.start()
	v.waitFor(t, "idle after restart", func(x View) bool { return x.Icon == IconIdle && x.PauseEnabled })

	// Repeated identical polls do not repaint.
	v.mu.Lock()
	n := len(v.vs)
	v.mu.Unlock()
	// Some seven polls pass: the test is that none of them repaints.
	waitfor.Never(t, 150*time.Millisecond, "a repaint without a change", func() bool {
		v.mu.Lock()
		defer v.mu.Unlock()
		return len(v.vs) != n
	})
}

// TestKillNotBlockedBySlowStatus: a status read stuck on a slow daemon
// neither blocks the kill switch nor delays it.
func TestKillNotBlockedBySlowStatus(t *testing.T) {
	f := newFakeDaemon(t)
	f.set(func(s *Status) { s.State.Active, s.PendingApprovals = 1, 2 })
	c, v := startController(t, f.dir)
	v.waitFor(t, "waiting", func(x View) bool { return x.Icon == IconWaiting })

	slow := make(chan struct{})
	f.mu.Lock()
	f.slowStat = slow
	f.mu.Unlock()
	defer close(slow)
	waitfor.For(t, 10*time.Second, "a status request to hang", func() bool { return f.hanging.Load() > 0 })

	done := make(chan error, 1)
	go func() { done <- c.Kill(t.Context()) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("kill: %v", err)
		}
	case <-time.After(statusTimeout):
		t.Fatal("kill switch waited for the stuck status request")
	}
	posts := f.postsSoFar()
	if len(posts) != 1 || posts[0] != PathKill+` {"reason":"killed by human","via":"tray"}` {
		t.Fatalf("posts %q", posts)
	}
	v.waitFor(t, "killed", func(x View) bool { return x.Icon == IconKilled && x.PauseLabel == LabelResume })

	// Resume from the same menu item.
	f.mu.Lock()
	f.slowStat = nil
	f.mu.Unlock()
	if err := c.TogglePause(t.Context()); err != nil {
		t.Fatal(err)
	}
	if p := f.postsSoFar(); p[len(p)-1] != PathResume+` {"via":"tray"}` {
		t.Fatalf("posts %q", p)
	}
	v.waitFor(t, "resumed", func(x View) bool { return x.Icon == IconActive && x.PauseLabel == LabelPause })
	if err := c.TogglePause(t.Context()); err != nil {
		t.Fatal(err)
	}
	if p := f.postsSoFar(); p[len(p)-1] != PathPause+` {"via":"tray"}` {
		t.Fatalf("posts %q", p)
	}
	v.waitFor(t, "paused", func(x View) bool { return x.Icon == IconPaused })
}

// TestKillRetriesUntilDaemonAnswers: a kill pressed while the daemon is
// restarting is delivered once it is back.
func TestKillRetriesUntilDaemonAnswers(t *testing.T) {
	f := newFakeDaemon(t)
	c, v := startController(t, f.dir)
	v.waitFor(t, "idle", func(x View) bool { return x.Icon == IconIdle })
	f.stop()
	var dials atomic.Int32
	dial := c.o.Dial
	c.o.Dial = func() *client.Client { dials.Add(1); return dial() }
	done := make(chan error, 1)
	go func() { done <- c.Kill(t.Context()) }()
	waitfor.For(t, switchWithin, "the kill to be retried while the daemon is away", func() bool { return dials.Load() >= 2 })
	f.start()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("kill: %v", err)
		}
	case <-time.After(switchWithin):
		t.Fatal("kill never delivered")
	}
	v.waitFor(t, "killed", func(x View) bool { return x.Icon == IconKilled })
}

// TestRefusalShowsNotice: a switch the daemon refuses is not retried and
// the menu says what went wrong.
func TestRefusalShowsNotice(t *testing.T) {
	f := newFakeDaemon(t)
	f.mu.Lock()
	f.refuseAll = true
	f.mu.Unlock()
	c, v := startController(t, f.dir)
	v.waitFor(t, "idle", func(x View) bool { return x.Icon == IconIdle })
	if err := c.Kill(t.Context()); err == nil {
		t.Fatal("refused kill reported success")
	}
	if n := len(f.postsSoFar()); n != 1 {
		t.Fatalf("refused kill sent %d times", n)
	}
	v.waitFor(t, "notice", func(x View) bool {
		return strings.Contains(x.Summary, "could not stop the agents: no, not now") && strings.Contains(x.Summary, "gatehouse kill")
	})
	// Open with no OpenUI is a no-op; with a failing one it says so.
	c.o.OpenUI = func() error { return &client.APIError{Status: 500, Msg: "boom"} }
	c.Open()
	v.waitFor(t, "open notice", func(x View) bool { return strings.Contains(x.Summary, "could not open Gatehouse: boom") })
}

// TestQuit: beside the desktop app Quit asks the app to quit (and the
// tray stays until the app stops it); alone it closes only the tray.
func TestQuit(t *testing.T) {
	f := newFakeDaemon(t)
	var asked, stopped int
	c := newController(Options{Client: client.New(f.dir), QuitApp: func() error { asked++; return nil }}, (&views{}).apply)
	c.stop = func() { stopped++ }
	c.Quit()
	if asked != 1 || stopped != 0 {
		t.Fatalf("with the app: asked %d, stopped %d; want 1, 0", asked, stopped)
	}
	c.o.QuitApp = nil
	c.Quit()
	if asked != 1 || stopped != 1 {
		t.Fatalf("alone: asked %d, stopped %d; want 1, 1", asked, stopped)
	}
	v := &views{}
	c = newController(Options{Client: client.New(f.dir), QuitApp: func() error { return errors.New("no answer") }}, v.apply)
	c.Quit()
	if !strings.Contains(v.last().Summary, "could not quit Gatehouse: no answer") {
		t.Fatalf("failed quit: %+v", v.last())
	}
}
