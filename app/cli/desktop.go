//go:build desktop

package cli

import (
	"errors"
	"fmt"
	"os"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/gatehouse-dev/gatehouse/app/desktop"
)

// The window toolkit (GTK, Cocoa) must run on the main OS thread. Locking
// here, during init, keeps the main goroutine (where cobra runs every
// command) on it for the life of the process.
func init() { runtime.LockOSThread() }

func init() {
	runDefault = func(cmd *cobra.Command, g *Globals, f *serveFlags) error {
		return runDesktop(cmd, g, f, false)
	}
	register(func(g *Globals) *cobra.Command {
		var f serveFlags
		var hidden bool
		cmd := &cobra.Command{
			Use:   "desktop",
			Short: "Run the desktop app (what a bare `gatehouse` does); --start-hidden for login autostart",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				return runDesktop(cmd, g, &f, hidden)
			},
		}
		f.add(cmd.Flags())
		cmd.Flags().BoolVar(&hidden, "start-hidden", false, "start with the window hidden (the tray or a second launch shows it); used by the login autostart entry")
		return cmd
	})
}

// runDesktop runs the window with the daemon in the same process, or the
// headless daemon when there is no display to put a window on.
func runDesktop(cmd *cobra.Command, g *Globals, f *serveFlags, startHidden bool) error {
	if !desktop.HasDisplay(runtime.GOOS, os.Getenv) {
		fmt.Fprintln(g.Stderr, "gatehouse: no display (DISPLAY and WAYLAND_DISPLAY are unset), so no window; starting the headless daemon (same as `gatehouse serve`).")
		return runServe(cmd, g, f)
	}
	opts, err := prepareServe(cmd, g, f)
	if err != nil {
		return err
	}

	var tray []string
	if exe, err := os.Executable(); err == nil {
		tray = []string{exe, "--data", opts.DataDir}
		if g.Config != "" {
			tray = append(tray, "--config", g.Config)
		}
		tray = append(tray, "--log-level", g.LogLevel, "tray")
	} else {
		opts.Logger.Warn("tray icon not started: cannot find this executable", "err", err)
	}
	err = desktop.Run(cmd.Context(), desktop.Options{
		Daemon:      opts,
		StartHidden: startHidden,
		Tray:        tray,
		Args:        os.Args[1:],
		Logger:      opts.Logger,
		Stderr:      g.Stderr,
	})
	if errors.Is(err, desktop.ErrAlreadyRunning) {
		fmt.Fprintf(g.Stderr, "gatehouse: %v\n", err)
		return nil
	}
	if err != nil {
		return serveError(err, opts.Listen)
	}
	return nil
}
