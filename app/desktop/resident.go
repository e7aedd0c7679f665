package desktop

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/tray"
	"github.com/gatehouse-dev/gatehouse/backend/daemon"
)

// ErrAlreadyRunning means another Gatehouse app on the same data dir was
// asked to show its window, so this launch has nothing more to do.
var ErrAlreadyRunning = errors.New("Gatehouse is already running on this data directory; its window was brought to the front")

// TrayOfAppEnv is set in the tray's environment when the app started it
// (its value is the app's pid): the tray's Quit then quits the app.
const TrayOfAppEnv = "GATEHOUSE_DESKTOP_PID"

// Options configure the desktop app.
type Options struct {
	// Daemon is the daemon to host, exactly as `gatehouse serve` would run
	// it (its Ready hook is taken over here).
	Daemon daemon.Options
	// StartHidden starts without a window (login autostart); the tray, a
	// notification or a second launch opens it.
	StartHidden bool
	// Window is the argv of the window process (`gatehouse-desktop window
	// --data DIR …`); --start-hidden is added when it is prepared hidden.
	Window []string
	// Tray is the argv of the tray process; empty starts none.
	Tray []string
	// Args are this launch's arguments, handed to an already running app.
	Args []string
	// ReleaseAfter is how long a hidden window keeps its process (and
	// WebKit's) before it is released; 0 means DefaultReleaseAfter.
	ReleaseAfter time.Duration
	// NoSpare keeps no spare window process while the window is released
	// (see windowConfig.spare): less memory, a slower first show.
	NoSpare bool
	Logger  *slog.Logger
	Stderr  io.Writer
}

// resident is the running app: the daemon, the tray, notifications, and a
// window process while the window is wanted.
type resident struct {
	logger *slog.Logger
	d      *daemon.Daemon
	win    *windowHost

	quitting atomic.Bool // a quit question is on screen
	quitOnce sync.Once
	quitCh   chan *daemon.StopReason
	ctx      context.Context
}

// Run hosts the daemon and the desktop around it. It returns when the
// person quits (menu, tray) or ctx ends (SIGTERM), after the window, the
// tray and the daemon stopped. Calls still waiting on a card are denied,
// their agents answered and both recorded before the daemon stops.
//
// This process links no GTK and no WebKit: the window is a process of its
// own (see package window), started when the person opens Gatehouse or a
// card arrives while it is hidden, and released some time after it is
// hidden, so an idle Gatehouse costs little memory.
func Run(ctx context.Context, o Options) error {
	logger, stderr := outputs(o.Logger, o.Stderr)
	id := UniqueID(o.Daemon.DataDir)
	// Single instance, before anything else: a second launch on this data
	// dir shows the first window instead of starting a second daemon.
	if raiseRunning(id, o.Args) {
		return ErrAlreadyRunning
	}

	// The daemon stops only when told, after the window and the tray, so
	// the order of a stop is ours.
	dctx, stopDaemon := context.WithCancelCause(context.WithoutCancel(ctx))
	defer stopDaemon(nil)
	ready := make(chan *daemon.Daemon, 1)
	dopts := o.Daemon
	dopts.Ready = func(d *daemon.Daemon) { ready <- d }
	daemonDone := make(chan struct{})
	var daemonErr error
	go func() {
		defer close(daemonDone)
		daemonErr = daemon.Run(dctx, dopts)
	}()
	var d *daemon.Daemon
	select {
	case d = <-ready:
	case <-daemonDone:
		if daemonErr == nil {
			daemonErr = errors.New("the daemon stopped before it was ready")
		}
		return daemonErr
	}

	r := &resident{logger: logger, d: d, quitCh: make(chan *daemon.StopReason, 1), ctx: ctx}
	r.win = newWindowHost(windowConfig{
		argv: o.Window, env: windowEnv(os.Environ(), logger), stderr: stderr, logger: logger,
		releaseAfter: o.ReleaseAfter, pending: d.PendingApprovals, onQuit: func() { r.requestQuit("the window") },
		spare: !o.NoSpare,
	})
	release, err := claimInstance(id, r.onMessage)
	if err != nil {
		logger.Warn("a second launch will not find this window (no session bus name)", "err", err)
	}
	trayProc := startTray(o.Tray, stderr, logger)
	notifier := newNotifier(r.onNotification)
	if trayProc != nil {
		go r.noTrayNotice(notifier, tray.HasHost)
	}
	go (&approvalWatcher{api: d.LocalHandler(), hidden: r.win.Hidden, notify: notifier, onCard: r.onCard, logger: logger}).run(dctx)
	if o.StartHidden {
		r.win.Spare()
	} else {
		r.win.Show("Gatehouse started")
	}

	var reason *daemon.StopReason
	select {
	case <-ctx.Done():
		logger.Info("stop requested; stopping Gatehouse")
	case reason = <-r.quitCh:
		logger.Info("quit; stopping Gatehouse")
	case <-daemonDone:
		logger.Error("the daemon stopped; closing the desktop app", "err", daemonErr)
	}
	r.win.Stop(3 * time.Second)
	trayProc.stop(3 * time.Second)
	notifier.Close()
	release()
	if reason != nil {
		stopDaemon(reason)
	} else {
		stopDaemon(nil)
	}
	select {
	case <-daemonDone:
	case <-time.After(30 * time.Second):
		return errors.New("the daemon did not stop within 30s")
	}
	if daemonErr != nil && !errors.Is(daemonErr, context.Canceled) {
		return daemonErr
	}
	return nil
}

// onMessage handles a second launch (or the tray) on this data dir.
func (r *resident) onMessage(args []string) {
	for _, a := range args {
		switch a {
		case quitArg:
			r.requestQuit("the tray")
			return
		case prewarmArg:
			r.win.Prewarm("the tray menu opened")
			return
		}
	}
	r.win.Show("Gatehouse was launched again")
}

// noTrayNotice tells the person, in a notification, when this desktop
// shows no tray icons: the kill switch they would look for there is in
// the window (and `gatehouse kill`). A click on it opens the window.
func (r *resident) noTrayNotice(n Notifier, hasHost func() (bool, error)) {
	if has, err := hasHost(); err != nil || has {
		return
	}
	if _, err := n.Notify(Notification{Title: tray.NoHostTitle, Body: tray.NoHostBody}); err != nil {
		r.logger.Warn("no tray host, and no notification server to say so; the kill switch is in the window and `gatehouse kill`", "err", err)
		return
	}
	r.logger.Info("no tray host: a notification says the kill switch is in the window and `gatehouse kill`")
}

// onCard runs for each new card: while the window is hidden it is
// prepared (hidden) so that opening it from the notification is quick.
func (r *resident) onCard() {
	if r.win.Hidden() {
		r.win.Prewarm("a card arrived while the window is hidden")
	}
}

// requestQuit is a quit the person asked for (Ctrl+Q, the tray's Quit
// Gatehouse). With calls waiting it asks in the window first: quitting
// denies them.
func (r *resident) requestQuit(via string) {
	if !r.quitting.CompareAndSwap(false, true) {
		return // the question is already on screen
	}
	defer r.quitting.Store(false)
	if n := r.d.PendingApprovals(); n > 0 {
		r.logger.Info("quit with calls waiting; asking first", "waiting", n, "via", via)
		quit, asked := r.win.ConfirmQuit(r.ctx, n)
		if asked && !quit {
			r.logger.Info("quit cancelled; Gatehouse keeps running", "waiting", n)
			return
		}
		if !asked {
			r.logger.Warn("could not ask before quitting (no window); quitting", "waiting", n)
		}
	}
	r.quitOnce.Do(func() {
		r.quitCh <- &daemon.StopReason{Why: "quit", By: "human", Message: "the person quit Gatehouse before answering, so the call was denied"}
	})
}

// Sent to the running app: quitArg quits it (see RequestQuit), prewarmArg
// prepares the window (see Prewarm).
const (
	quitArg    = "--quit"
	prewarmArg = "--prepare-window"
)
