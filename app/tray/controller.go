package tray

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/client"
)

// Options configure the tray.
type Options struct {
	// Client reads the daemon's status (required).
	Client *client.Client
	// Dial returns a client with a connection pool of its own. Every
	// switch (kill, pause, resume) is sent on a fresh one, so a status
	// request stuck on a slow daemon never holds up the kill switch. Nil
	// uses Client.
	Dial func() *client.Client
	// OpenUI shows Gatehouse (the desktop window, else the web UI).
	OpenUI func() error
	// QuitApp, when the desktop app started this tray, asks the app to
	// quit (it asks the person first if calls are waiting, then stops the
	// tray too). Nil: Quit closes only the tray.
	QuitApp func() error
	// MenuOpened, if set, runs when the person opens the tray's menu (the
	// desktop app then prepares its window, as Open is likely next).
	MenuOpened func()
	Logger     *slog.Logger

	// PollEvery is how often the status is read (default 1s).
	PollEvery time.Duration
}

// Timeouts. A status read that takes longer shows the daemon as not
// answering; a switch is retried on fresh connections until switchWithin.
const (
	statusTimeout  = 3 * time.Second
	attemptTimeout = 5 * time.Second
	switchWithin   = 15 * time.Second
	noticeFor      = time.Minute
)

// controller keeps the state, polls the daemon and sends the switches. It
// knows nothing of the GUI: it calls apply with every view that differs
// from the last one. apply runs with the controller's lock held, so it must
// not block or call back into the controller.
type controller struct {
	o     Options
	apply func(View)
	now   func() time.Time

	mu          sync.Mutex
	st          State
	notice      string
	noticeUntil time.Time
	shown       bool
	last        View

	poke chan struct{}
	// stop ends the tray (set by Run).
	stop func()
}

func newController(o Options, apply func(View)) *controller {
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.PollEvery <= 0 {
		o.PollEvery = time.Second
	}
	if o.Dial == nil {
		cl := o.Client
		o.Dial = func() *client.Client { return cl }
	}
	c := &controller{o: o, apply: apply, now: time.Now, poke: make(chan struct{}, 1)}
	c.st = State{Offline: true, OfflineWhy: WhyConnecting}
	return c
}

// render applies the current view if it changed. Callers hold c.mu.
func (c *controller) renderLocked() {
	s := c.st
	if c.notice != "" && c.now().Before(c.noticeUntil) {
		s.Notice = c.notice
	}
	v := Render(s)
	if c.shown && v == c.last {
		return
	}
	c.shown, c.last = true, v
	c.apply(v)
}

// State returns what the tray currently believes.
func (c *controller) State() State {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.st
}

func (c *controller) update(f func(*State)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	wasOffline := c.st.Offline
	f(&c.st)
	if c.st.Offline != wasOffline {
		if c.st.Offline {
			c.o.Logger.Warn("tray: lost the daemon", "why", c.st.OfflineWhy)
		} else {
			c.o.Logger.Info("tray: connected to the daemon")
		}
	}
	c.renderLocked()
}

func (c *controller) setNotice(msg string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.notice, c.noticeUntil = msg, c.now().Add(noticeFor)
	c.renderLocked()
}

func (c *controller) clearNotice() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.notice = ""
	c.renderLocked()
}

// Show applies the initial view.
func (c *controller) Show() { c.update(func(*State) {}) }

// Run polls the daemon until ctx ends. A poke (after a switch) polls at
// once.
func (c *controller) Run(ctx context.Context) {
	t := time.NewTicker(c.o.PollEvery)
	defer t.Stop()
	for {
		c.pollOnce(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-c.poke:
		}
	}
}

func (c *controller) pollOnce(ctx context.Context) {
	rctx, cancel := context.WithTimeout(ctx, statusTimeout)
	defer cancel()
	var st Status
	err := c.o.Client.Get(rctx, PathStatus, nil, &st)
	if ctx.Err() != nil {
		return
	}
	if err != nil {
		why := WhyNotAnswering
		if errors.Is(err, client.ErrNoDaemon) {
			why = WhyNotRunning
		}
		c.o.Logger.Debug("tray: status", "err", err)
		c.update(func(s *State) { s.Offline, s.OfflineWhy = true, why })
		return
	}
	c.update(func(s *State) { *s = FromStatus(st) })
}

func (c *controller) refresh() {
	select {
	case c.poke <- struct{}{}:
	default:
	}
}

// switchReply is the answer to kill, pause and resume.
type switchReply struct {
	KilledSessions int `json:"killed_sessions"`
	State          struct {
		Paused bool `json:"paused"`
		Killed bool `json:"killed"`
		Active int  `json:"active_sessions"`
	} `json:"state"`
}

// send posts a switch on fresh connections, retrying transport failures
// until switchWithin has passed. A refusal from the daemon is final.
func (c *controller) send(ctx context.Context, path string, body any) (switchReply, error) {
	ctx, cancel := context.WithTimeout(ctx, switchWithin)
	defer cancel()
	var lastErr error
	for attempt := 1; ; attempt++ {
		actx, acancel := context.WithTimeout(ctx, attemptTimeout)
		var out switchReply
		err := c.o.Dial().Post(actx, path, body, &out)
		acancel()
		if err == nil {
			return out, nil
		}
		lastErr = err
		var ae *client.APIError
		if errors.As(err, &ae) {
			return out, err
		}
		c.o.Logger.Warn("tray: switch not acknowledged, retrying", "path", path, "attempt", attempt, "err", err)
		select {
		case <-ctx.Done():
			return out, lastErr
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// Kill is the kill switch: every agent's processes are killed, pending
// approvals denied, new calls refused until resume. The daemon audits it
// as "killed by human via tray".
func (c *controller) Kill(ctx context.Context) error {
	c.o.Logger.Warn("tray: kill switch pressed")
	out, err := c.send(ctx, PathKill, map[string]string{"reason": "killed by human", "via": "tray"})
	if err != nil {
		c.o.Logger.Error("tray: kill switch failed", "err", err)
		c.setNotice(failure("could not stop the agents", err) + "; run `gatehouse kill`")
		return err
	}
	c.o.Logger.Warn("tray: all agents stopped", "sessions", out.KilledSessions)
	c.afterSwitch(out, true)
	return nil
}

// TogglePause pauses, or resumes when paused or killed.
func (c *controller) TogglePause(ctx context.Context) error {
	path := PausePath(c.State())
	out, err := c.send(ctx, path, map[string]string{"via": "tray"})
	if err != nil {
		what := "could not pause"
		if path == PathResume {
			what = "could not resume"
		}
		c.o.Logger.Error("tray: "+what, "err", err)
		c.setNotice(failure(what, err))
		return err
	}
	c.afterSwitch(out, false)
	return nil
}

func (c *controller) afterSwitch(out switchReply, killed bool) {
	c.clearNotice()
	c.update(func(s *State) {
		s.Offline, s.OfflineWhy = false, ""
		s.Paused, s.Killed, s.Active = out.State.Paused, out.State.Killed, out.State.Active
		if killed {
			s.Pending = 0 // the kill switch denies every pending approval
		}
	})
	c.refresh()
}

// Open shows Gatehouse.
func (c *controller) Open() error {
	if c.o.OpenUI == nil {
		return nil
	}
	if err := c.o.OpenUI(); err != nil {
		c.o.Logger.Error("tray: open Gatehouse", "err", err)
		c.setNotice(failure("could not open Gatehouse", err))
		return err
	}
	return nil
}

// Quit quits the desktop app when the tray belongs to one, else closes
// only the tray.
func (c *controller) Quit() {
	if c.o.QuitApp == nil {
		if c.stop != nil {
			c.stop()
		}
		return
	}
	c.o.Logger.Info("tray: asking the desktop app to quit")
	if err := c.o.QuitApp(); err != nil {
		c.o.Logger.Error("tray: quit Gatehouse", "err", err)
		c.setNotice(failure("could not quit Gatehouse", err))
	}
}

func failure(what string, err error) string {
	var ae *client.APIError
	switch {
	case errors.As(err, &ae):
		return fmt.Sprintf("%s: %s", what, ae.Msg)
	case errors.Is(err, client.ErrNoDaemon):
		return what + ": the daemon is not running"
	case errors.Is(err, context.DeadlineExceeded):
		return what + ": the daemon did not answer"
	default:
		return fmt.Sprintf("%s: %v", what, err)
	}
}
