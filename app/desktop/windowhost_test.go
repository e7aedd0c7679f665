package desktop

import (
	"bufio"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/desktop/window"
	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

// The test binary doubles as a window process that speaks the protocol:
// shown or hidden on command, Ctrl+Q never, "quit" to every question.
func TestMain(m *testing.M) {
	if os.Getenv("GATEHOUSE_FAKE_WINDOW") == "1" {
		fakeWindow()
		return
	}
	os.Exit(m.Run())
}

func fakeWindow() {
	// FAKE_FAIL: fail at start as GTK does without a display: every time
	// ("always"), or the first time (a path, made then).
	if f := os.Getenv("FAKE_FAIL"); f == "always" {
		os.Exit(2)
	} else if f != "" {
		if _, err := os.Stat(f); err != nil {
			os.WriteFile(f, nil, 0o644)
			os.Exit(2)
		}
	}
	ev := os.NewFile(3, "events")
	send := func(e window.Event) { ev.Write(window.Line(e)) }
	hidden, spare := false, false
	for _, a := range os.Args {
		hidden = hidden || a == "--start-hidden"
		spare = spare || a == "--spare"
	}
	sc := bufio.NewScanner(os.Stdin)
	if spare {
		// As the real one: nothing until the first command, which it
		// then carries out.
		if !sc.Scan() {
			os.Exit(0)
		}
		c, err := window.ParseCommand(sc.Bytes())
		if err != nil || c.Cmd == window.CmdExit {
			os.Exit(0)
		}
		os.WriteFile(os.Getenv("FAKE_SPARE_LOG"), []byte("opened by "+string(c.Cmd)+"\n"), 0o644)
		send(window.Event{Ev: window.EvVisible, Visible: c.Cmd != window.CmdHide, Ready: true, Closed: c.Cmd == window.CmdHide})
	} else {
		send(window.Event{Ev: window.EvVisible, Visible: !hidden, Ready: true})
	}
	for sc.Scan() {
		c, err := window.ParseCommand(sc.Bytes())
		if err != nil {
			os.Exit(3)
		}
		switch c.Cmd {
		case window.CmdShow:
			send(window.Event{Ev: window.EvVisible, Visible: true, Ready: true})
		case window.CmdHide:
			send(window.Event{Ev: window.EvVisible, Visible: false, Ready: true, Closed: true})
		case window.CmdConfirmQuit:
			send(window.Event{Ev: window.EvVisible, Visible: true, Ready: true})
			send(window.Event{Ev: window.EvQuitAnswer, Quit: os.Getenv("FAKE_ANSWER") == "quit"})
		case window.CmdExit:
			os.Exit(0)
		}
	}
}

func newTestHost(t *testing.T, release time.Duration, pending *atomic.Int32, answer string) *windowHost {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	h := newWindowHost(windowConfig{
		argv: []string{exe, "-test.run=^$"}, env: append(os.Environ(), "GATEHOUSE_FAKE_WINDOW=1", "FAKE_ANSWER="+answer),
		stderr: io.Discard, logger: slog.New(slog.NewTextHandler(io.Discard, nil)), releaseAfter: release,
		pending: func() int { return int(pending.Load()) },
	})
	t.Cleanup(func() { h.Stop(3 * time.Second) })
	return h
}

func (h *windowHost) running() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.proc != nil
}

// released reports that the window's process is gone or being ended on
// purpose: a release shows here at once, before the process has exited.
func (h *windowHost) released() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.proc == nil || h.proc.release
}

// TestWindowReleasedWhileHidden: a hidden window's process ends after the
// delay, but not while cards wait; Show brings a new one.
func TestWindowReleasedWhileHidden(t *testing.T) {
	var pending atomic.Int32
	h := newTestHost(t, 100*time.Millisecond, &pending, "")
	h.Show("test")
	waitfor.For(t, 10*time.Second, "shown", func() bool { return !h.Hidden() })
	// Three release delays pass: the test is that nothing happens in them.
	waitfor.Never(t, 300*time.Millisecond, "a visible window was released", h.released)

	pending.Store(1)
	h.mu.Lock()
	h.sendLocked(window.Command{Cmd: window.CmdHide})
	h.mu.Unlock()
	waitfor.For(t, 10*time.Second, "hidden", h.Hidden)
	// Four release delays pass: the test is that no release happens in them.
	waitfor.Never(t, 400*time.Millisecond, "released while a card waits", h.released)
	pending.Store(0)
	waitfor.For(t, 10*time.Second, "released once nothing waits", func() bool { return !h.running() })

	h.Show("again")
	waitfor.For(t, 10*time.Second, "shown by a new process", func() bool { return h.running() && !h.Hidden() })
}

// TestWindowPrewarmStaysHidden: a prepared window runs hidden (the person
// sees nothing) and shows on Show without a new process.
func TestWindowPrewarmStaysHidden(t *testing.T) {
	var pending atomic.Int32
	h := newTestHost(t, time.Minute, &pending, "")
	h.Prewarm("test")
	waitfor.For(t, 10*time.Second, "running", h.running)
	if !h.Hidden() {
		t.Fatal("a prepared window is visible")
	}
	h.mu.Lock()
	p := h.proc
	h.mu.Unlock()
	h.Show("test")
	waitfor.For(t, 10*time.Second, "shown", func() bool { return !h.Hidden() })
	h.mu.Lock()
	same := h.proc == p
	h.mu.Unlock()
	if !same {
		t.Fatal("Show started a new process instead of showing the prepared one")
	}
}

func TestWindowConfirmQuit(t *testing.T) {
	for _, c := range []struct {
		answer string
		quit   bool
	}{{"quit", true}, {"keep", false}} {
		var pending atomic.Int32
		h := newTestHost(t, time.Minute, &pending, c.answer)
		quit, asked := h.ConfirmQuit(t.Context(), 2)
		if quit != c.quit || !asked {
			t.Errorf("answer %q: quit %v asked %v, want %v true", c.answer, quit, asked, c.quit)
		}
	}
	// No window program: nobody could ask.
	h := newWindowHost(windowConfig{logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if _, asked := h.ConfirmQuit(t.Context(), 1); asked {
		t.Error("asked without a window program")
	}
}

// TestWindowClosedAndEnded: closing the window and its process ending are
// told to the host's owner (an attached window ends its launch on them).
func TestWindowClosedAndEnded(t *testing.T) {
	var closed, ended atomic.Int32
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	h := newWindowHost(windowConfig{
		argv: []string{exe, "-test.run=^$"}, env: append(os.Environ(), "GATEHOUSE_FAKE_WINDOW=1"),
		stderr: io.Discard, logger: slog.New(slog.NewTextHandler(io.Discard, nil)), releaseAfter: time.Hour,
		onClosed: func() { closed.Add(1) }, onEnded: func() { ended.Add(1) },
	})
	t.Cleanup(func() { h.Stop(3 * time.Second) })
	h.Show("test")
	waitfor.For(t, 10*time.Second, "shown", func() bool { return !h.Hidden() })
	if closed.Load() != 0 || ended.Load() != 0 {
		t.Fatalf("a shown window counts as closed (%d) or ended (%d)", closed.Load(), ended.Load())
	}
	h.mu.Lock()
	h.sendLocked(window.Command{Cmd: window.CmdHide})
	h.mu.Unlock()
	waitfor.For(t, 10*time.Second, "closed told", func() bool { return closed.Load() == 1 })
	h.Stop(3 * time.Second)
	waitfor.For(t, 10*time.Second, "ended told", func() bool { return ended.Load() == 1 })
}

func newSpareHost(t *testing.T, release time.Duration, log string) *windowHost {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	h := newWindowHost(windowConfig{
		argv: []string{exe, "-test.run=^$"}, env: append(os.Environ(), "GATEHOUSE_FAKE_WINDOW=1", "FAKE_SPARE_LOG="+log),
		stderr: io.Discard, logger: slog.New(slog.NewTextHandler(io.Discard, nil)), releaseAfter: release, spare: true,
	})
	t.Cleanup(func() { h.Stop(3 * time.Second) })
	return h
}

// TestWindowSpare: a spare process shows nothing until asked; Show opens
// the window in it, Prewarm prepares it hidden, in the same process.
func TestWindowSpare(t *testing.T) {
	for _, tt := range []struct {
		name   string
		open   func(h *windowHost)
		want   string
		hidden bool
	}{
		{"shown", func(h *windowHost) { h.Show("test") }, "opened by show", false},
		{"prepared", func(h *windowHost) { h.Prewarm("test") }, "opened by hide", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "spare")
			h := newSpareHost(t, time.Minute, log)
			h.Spare()
			waitfor.For(t, 10*time.Second, "a spare", h.running)
			h.mu.Lock()
			spare := h.proc
			h.mu.Unlock()
			// The spare has had time to say something if it were a window:
			// the test is that it stays out of sight and unread.
			waitfor.Never(t, 300*time.Millisecond, "the spare opened a window by itself", func() bool {
				_, err := os.Stat(log)
				return err == nil || !h.Hidden()
			})
			tt.open(h)
			waitfor.For(t, 10*time.Second, "the spare opened "+tt.name, func() bool {
				b, _ := os.ReadFile(log)
				return string(b) == tt.want+"\n"
			})
			if tt.hidden {
				waitfor.Never(t, 200*time.Millisecond, "a prepared spare became visible", func() bool { return !h.Hidden() })
			} else {
				waitfor.For(t, 10*time.Second, "visible", func() bool { return !h.Hidden() })
			}
			h.mu.Lock()
			same := h.proc == spare
			h.mu.Unlock()
			if !same {
				t.Fatal("opening the window started a new process instead of using the spare")
			}
		})
	}
}

// TestWindowReleaseLeavesSpare: a released window's process is followed
// by a spare one.
func TestWindowReleaseLeavesSpare(t *testing.T) {
	h := newSpareHost(t, 100*time.Millisecond, filepath.Join(t.TempDir(), "spare"))
	h.Show("test")
	waitfor.For(t, 10*time.Second, "shown", func() bool { return !h.Hidden() })
	h.mu.Lock()
	first := h.proc
	h.sendLocked(window.Command{Cmd: window.CmdHide})
	h.mu.Unlock()
	waitfor.For(t, 10*time.Second, "released, and a spare started", func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.proc != nil && h.proc != first && h.proc.spare
	})
	if !h.Hidden() {
		t.Fatal("the spare shows a window")
	}
}

// Without spare, a released window leaves no process.
func TestWindowNoSpare(t *testing.T) {
	var pending atomic.Int32
	h := newTestHost(t, 100*time.Millisecond, &pending, "")
	h.Spare()
	if h.running() {
		t.Fatal("Spare started a process with spare off")
	}
	h.Show("test")
	waitfor.For(t, 10*time.Second, "shown", func() bool { return !h.Hidden() })
	h.mu.Lock()
	h.sendLocked(window.Command{Cmd: window.CmdHide})
	h.mu.Unlock()
	waitfor.For(t, 10*time.Second, "released", func() bool { return !h.running() })
	// Three release delays pass: the test is that no spare starts in them.
	waitfor.Never(t, 300*time.Millisecond, "a spare started with spare off", h.running)
}

// TestWindowStartedAgainAfterAFailedStart: a window process that ends
// before its window comes up is started once more, and the person's open
// is not lost to it; one that fails again ends as before.
func TestWindowStartedAgainAfterAFailedStart(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, fail string
		shown      bool
	}{
		{"once", filepath.Join(t.TempDir(), "failed-once"), true},
		{"always", "always", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ended atomic.Int32
			h := newWindowHost(windowConfig{
				argv: []string{exe, "-test.run=^$"}, env: append(os.Environ(), "GATEHOUSE_FAKE_WINDOW=1", "FAKE_FAIL="+tc.fail),
				stderr: io.Discard, logger: slog.New(slog.NewTextHandler(io.Discard, nil)), releaseAfter: time.Hour,
				onEnded: func() { ended.Add(1) },
			})
			t.Cleanup(func() { h.Stop(3 * time.Second) })
			h.Show("test")
			if tc.shown {
				waitfor.For(t, 10*time.Second, "shown after one failed start", func() bool { return !h.Hidden() })
				if n := ended.Load(); n != 0 {
					t.Fatalf("ended told %d times", n)
				}
				return
			}
			waitfor.For(t, 10*time.Second, "ended told after the second failed start", func() bool { return ended.Load() == 1 })
			if h.running() {
				t.Fatal("a third start")
			}
		})
	}
}
