package desktop

import (
	"bufio"
	"io"
	"log/slog"
	"os"
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
	ev := os.NewFile(3, "events")
	send := func(e window.Event) { ev.Write(window.Line(e)) }
	hidden := false
	for _, a := range os.Args {
		hidden = hidden || a == "--start-hidden"
	}
	send(window.Event{Ev: window.EvVisible, Visible: !hidden, Ready: true})
	sc := bufio.NewScanner(os.Stdin)
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
