package desktop

import (
	"context"
	"io"
	"log/slog"
	"os"
	"time"
)

// AttachOptions configure a window onto a daemon that already runs on the
// data dir (`gatehouse serve`, started in a terminal or by a service).
type AttachOptions struct {
	DataDir string
	// Window is the argv of the window process, as in Options.
	Window []string
	// Args are this launch's arguments, handed to an app already running.
	Args []string
	// Alive reports whether the daemon still answers; the window closes
	// when it stops. Nil: always.
	Alive  func(context.Context) bool
	Logger *slog.Logger
	Stderr io.Writer
}

// attachPoll is how often an attached window checks that its daemon still
// runs.
const attachPoll = 2 * time.Second

// Attach shows the Gatehouse window onto the daemon already running on
// o.DataDir and returns when the person closes or quits it, the daemon
// stops, or ctx ends. The daemon is not this process's: closing the window
// leaves it running, and a quit here quits only the window. A second
// launch meanwhile shows this window (ErrAlreadyRunning when a Gatehouse
// app runs there already; its window is shown instead).
func Attach(ctx context.Context, o AttachOptions) error {
	logger, stderr := outputs(o.Logger, o.Stderr)
	id := UniqueID(o.DataDir)
	if raiseRunning(id, o.Args) {
		return ErrAlreadyRunning
	}
	done := make(chan string, 1)
	end := func(why string) {
		select {
		case done <- why:
		default:
		}
	}
	h := newWindowHost(windowConfig{
		argv: o.Window, env: windowEnv(os.Environ(), logger), stderr: stderr, logger: logger,
		// The window is this process's only purpose: it is never
		// released behind the person's back, only closed.
		releaseAfter: 365 * 24 * time.Hour,
		onQuit:       func() { end("the window was quit") },
		onClosed:     func() { end("the window was closed") },
		onEnded:      func() { end("the window process ended") },
	})
	release, err := claimInstance(id, func(args []string) {
		for _, a := range args {
			if a == quitArg {
				end("quit from the tray")
				return
			}
		}
		h.Show("Gatehouse was launched again")
	})
	if err != nil {
		logger.Warn("a second launch will not find this window (no session bus name)", "err", err)
	}
	defer release()
	h.Show("opened onto the running daemon")

	alive := o.Alive
	if alive == nil {
		alive = func(context.Context) bool { return true }
	}
	tick := time.NewTicker(attachPoll)
	defer tick.Stop()
	var why string
loop:
	for {
		select {
		case <-ctx.Done():
			why = "stop requested"
			break loop
		case why = <-done:
			break loop
		case <-tick.C:
			if !alive(ctx) {
				why = "the daemon stopped"
				break loop
			}
		}
	}
	h.Stop(3 * time.Second)
	if why == "the daemon stopped" {
		logger.Info("the daemon stopped; window closed")
		return nil
	}
	logger.Info("window closed; the daemon keeps running", "why", why)
	return nil
}
