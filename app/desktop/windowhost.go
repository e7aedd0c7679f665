package desktop

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/desktop/window"
)

// DefaultReleaseAfter is how long a hidden window keeps its process: a
// window opened again within it shows at once; after it WebKit's memory is
// given back and the next open starts a fresh window process.
const DefaultReleaseAfter = 30 * time.Second

type windowConfig struct {
	argv         []string
	env          []string
	stderr       io.Writer
	logger       *slog.Logger
	releaseAfter time.Duration
	// pending counts the cards waiting: a hidden window is kept while
	// there are any, so the person answers them at once.
	pending func() int
	// onQuit is the person's Ctrl+Q in the window.
	onQuit func()
	// onClosed, when set, runs when the person closes the window (Ctrl+W,
	// the close button; not a minimise), and onEnded when its process ends.
	onClosed func()
	onEnded  func()
	// spare keeps a spare window process once the window is released (and
	// from the start when the app starts hidden): started, its libraries
	// loaded and its icon drawn, but with no window and no WebKit until it
	// is shown, so that showing a released window skips the start of a
	// program.
	spare bool
}

// windowHost starts, commands and releases the window process.
type windowHost struct {
	c windowConfig

	mu      sync.Mutex
	proc    *windowProc
	visible bool
	ready   bool
	asked   time.Time // when a show was asked and not yet seen
	timer   *time.Timer
	answer  chan bool // a quit question waiting for its answer
	stopped bool
	// retried: a window process ended before its window came up, and
	// another was started in its place; none is, again, until a window
	// has come up.
	retried bool
}

type windowProc struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	done    chan struct{}
	release bool // ended on purpose (released or stopped)
	// spare: started with --spare and told nothing yet; its first
	// command opens the window, shown or hidden.
	spare bool
	// hidden: started with --start-hidden; cameUp: its window said it
	// was ready, once.
	hidden, cameUp bool
}

func newWindowHost(c windowConfig) *windowHost {
	if c.releaseAfter <= 0 {
		c.releaseAfter = DefaultReleaseAfter
	}
	if c.pending == nil {
		c.pending = func() int { return 0 }
	}
	return &windowHost{c: c}
}

// windowEnv keeps WebKit's own storage (cache, local storage, HSTS) out of
// Gatehouse's data directory: WebKit files it under XDG_DATA_HOME and
// XDG_CACHE_HOME by program name, which for "gatehouse" is the daemon's
// default data dir. The window process uses no other XDG dir of its own.
func windowEnv(env []string, logger *slog.Logger) []string {
	base, err := os.UserCacheDir()
	if err != nil {
		logger.Warn("no cache directory for the window's web storage; using a temporary one", "err", err)
		base = os.TempDir()
	}
	dir := filepath.Join(base, "gatehouse", "webkit")
	for _, d := range []string{"data", "cache"} {
		// Made here: the window's libraries expect them to exist.
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			logger.Warn("cannot create the window's web storage directory", "err", err)
		}
	}
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		if strings.HasPrefix(kv, "XDG_DATA_HOME=") || strings.HasPrefix(kv, "XDG_CACHE_HOME=") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "XDG_DATA_HOME="+filepath.Join(dir, "data"), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"))
}

// Hidden reports whether the person cannot see the window.
func (h *windowHost) Hidden() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.proc == nil || !h.visible
}

// Show brings the window up, starting its process if it was released.
func (h *windowHost) Show(why string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stopped {
		return
	}
	h.c.logger.Info("showing the window", "why", why)
	// Timed even when the window seems up: its hide may still be on its
	// way, and the window answers every show.
	if h.asked.IsZero() {
		h.asked = time.Now()
	}
	h.stopTimerLocked()
	if h.proc == nil {
		h.startLocked(false)
		return
	}
	h.sendLocked(window.Command{Cmd: window.CmdShow})
}

// Prewarm starts the window process hidden, if it is not running, so the
// next Show is quick.
func (h *windowHost) Prewarm(why string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stopped || h.proc != nil && !h.proc.spare {
		return
	}
	h.c.logger.Info("preparing the window hidden", "why", why)
	if h.proc != nil {
		h.sendLocked(window.Command{Cmd: window.CmdHide})
		return
	}
	h.startLocked(true)
}

// Spare starts a spare window process (see windowConfig.spare) when no
// window process runs.
func (h *windowHost) Spare() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.spareLocked()
}

func (h *windowHost) spareLocked() {
	if !h.c.spare || h.stopped || h.proc != nil || len(h.c.argv) == 0 {
		return
	}
	h.launchLocked(append(append([]string(nil), h.c.argv...), "--spare"), true)
}

// ConfirmQuit asks the person, in the window, whether to quit although n
// calls are waiting. asked is false when no window could ask.
func (h *windowHost) ConfirmQuit(ctx context.Context, n int) (quit, asked bool) {
	h.mu.Lock()
	if h.stopped {
		h.mu.Unlock()
		return false, false
	}
	if h.asked.IsZero() && !h.visible {
		h.asked = time.Now()
	}
	h.stopTimerLocked()
	if h.proc == nil && !h.startLocked(false) {
		h.mu.Unlock()
		return false, false
	}
	ch := make(chan bool, 1)
	h.answer = ch
	p := h.proc
	h.sendLocked(window.Command{Cmd: window.CmdConfirmQuit, Waiting: n})
	h.mu.Unlock()
	select {
	case q := <-ch:
		return q, true
	case <-p.done:
		// The window went away without an answer: nobody said quit.
		return false, true
	case <-ctx.Done():
		return false, true
	}
}

// Stop ends the window process for good: exit, then SIGKILL after grace.
func (h *windowHost) Stop(grace time.Duration) {
	h.mu.Lock()
	h.stopped = true
	h.stopTimerLocked()
	p := h.proc
	if p != nil {
		p.release = true
		h.sendLocked(window.Command{Cmd: window.CmdExit})
		p.in.Close()
	}
	h.mu.Unlock()
	if p == nil {
		return
	}
	select {
	case <-p.done:
	case <-time.After(grace):
		h.c.logger.Warn("the window did not close; killing it", "pid", p.cmd.Process.Pid)
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// startLocked starts the window process; callers hold h.mu.
func (h *windowHost) startLocked(hidden bool) bool {
	if len(h.c.argv) == 0 {
		h.c.logger.Error("no window program; use the tray, the CLI or `gatehouse open`")
		return false
	}
	argv := append([]string(nil), h.c.argv...)
	if hidden {
		argv = append(argv, "--start-hidden")
	}
	return h.launchLocked(argv, false)
}

// launchLocked starts argv as the window process; callers hold h.mu.
func (h *windowHost) launchLocked(argv []string, spare bool) bool {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = h.c.env
	cmd.Stdout, cmd.Stderr = h.c.stderr, h.c.stderr
	cmd.SysProcAttr = windowAttrs()
	in, err := cmd.StdinPipe()
	if err != nil {
		h.c.logger.Error("window not started", "err", err)
		return false
	}
	evR, evW, err := os.Pipe()
	if err != nil {
		in.Close()
		h.c.logger.Error("window not started", "err", err)
		return false
	}
	cmd.ExtraFiles = []*os.File{evW} // fd 3 in the window
	if err := cmd.Start(); err != nil {
		in.Close()
		evR.Close()
		evW.Close()
		h.c.logger.Error("window not started; the tray and the CLI still have every control", "program", argv[0], "err", err)
		return false
	}
	evW.Close()
	p := &windowProc{cmd: cmd, in: in, done: make(chan struct{}), spare: spare, hidden: slices.Contains(argv, "--start-hidden")}
	h.proc, h.visible, h.ready = p, false, false
	if spare {
		h.c.logger.Info("spare window process started", "pid", cmd.Process.Pid)
	} else {
		h.c.logger.Info("window process started", "pid", cmd.Process.Pid, "hidden", slices.Contains(argv, "--start-hidden"))
	}
	go h.events(p, evR)
	go func() {
		err := cmd.Wait()
		close(p.done)
		h.ended(p, err)
	}()
	return true
}

// events follows what the window says until it closes its end.
func (h *windowHost) events(p *windowProc, r *os.File) {
	defer r.Close()
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		e, err := window.ParseEvent(sc.Bytes())
		if err != nil {
			h.c.logger.Error("ignoring a window event", "err", err)
			continue
		}
		switch e.Ev {
		case window.EvVisible:
			h.setVisible(p, e.Visible, e.Ready)
			if e.Closed && h.c.onClosed != nil {
				go h.c.onClosed()
			}
		case window.EvQuit:
			if h.c.onQuit != nil {
				go h.c.onQuit()
			}
		case window.EvQuitAnswer:
			h.mu.Lock()
			if h.answer != nil {
				h.answer <- e.Quit
				h.answer = nil
			}
			h.mu.Unlock()
		}
	}
}

func (h *windowHost) setVisible(p *windowProc, visible, ready bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.proc != p {
		return
	}
	h.visible, h.ready = visible, ready
	if ready {
		p.cameUp, h.retried = true, false
	}
	if visible && ready && !h.asked.IsZero() {
		h.c.logger.Info("window shown", "took_ms", time.Since(h.asked).Milliseconds())
		h.asked = time.Time{}
	}
	if visible {
		h.stopTimerLocked()
		return
	}
	// A window prepared hidden counts its time from when its page is up,
	// so a slow start is not released before it could be shown.
	if ready {
		h.stopTimerLocked()
	}
	h.armTimerLocked(ready)
}

func (h *windowHost) ended(p *windowProc, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.proc != p {
		return
	}
	h.proc, h.visible, h.ready = nil, false, false
	h.stopTimerLocked()
	if h.answer != nil {
		h.answer <- false
		h.answer = nil
	}
	if !p.release && !p.spare && !p.cameUp && err != nil && !h.stopped && !h.retried {
		// Ended before its window came up: GTK may have found the display
		// busy for a moment ("failed to init GTK"). One more start, so the
		// person's open is not lost to it.
		h.retried = true
		h.c.logger.Warn("the window process ended before its window came up; starting it once more", "pid", p.cmd.Process.Pid, "err", err)
		if h.startLocked(p.hidden) {
			return
		}
	}
	if h.c.onEnded != nil {
		go h.c.onEnded()
	}
	if p.release {
		h.c.logger.Info("window process ended", "pid", p.cmd.Process.Pid)
		h.spareLocked()
		return
	}
	h.c.logger.Warn("the window process ended; it starts again when Gatehouse is opened", "pid", p.cmd.Process.Pid, "err", err)
}

// armTimerLocked starts the release countdown; a window whose page never
// came up still goes, later.
func (h *windowHost) armTimerLocked(ready bool) {
	if h.stopped || h.timer != nil {
		return
	}
	d := h.c.releaseAfter
	if !ready {
		d = max(d, time.Minute)
	}
	h.timer = time.AfterFunc(d, h.releaseIfHidden)
}

func (h *windowHost) stopTimerLocked() {
	if h.timer != nil {
		h.timer.Stop()
		h.timer = nil
	}
}

// releaseIfHidden ends a hidden window's process unless cards wait (the
// person is likely to open it for them).
func (h *windowHost) releaseIfHidden() {
	waiting := h.c.pending()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.timer = nil
	p := h.proc
	if p == nil || h.visible || h.stopped || h.answer != nil {
		return
	}
	if waiting > 0 {
		h.armTimerLocked(h.ready)
		return
	}
	h.c.logger.Info("window released while hidden", "pid", p.cmd.Process.Pid, "hidden_for", h.c.releaseAfter)
	p.release = true
	h.sendLocked(window.Command{Cmd: window.CmdExit})
	p.in.Close()
}

// sendLocked writes one command; a window that stopped reading is killed
// (it starts again on the next Show).
func (h *windowHost) sendLocked(c window.Command) {
	p := h.proc
	if p == nil {
		return
	}
	p.spare = false
	if _, err := p.in.Write(window.Line(c)); err != nil && !p.release {
		h.c.logger.Warn("the window does not take commands; ending it", "err", err)
		p.release = true
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
	}
}
