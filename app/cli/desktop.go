package cli

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/gatehouse-dev/gatehouse/app/desktop"
)

func init() {
	runDefault = func(cmd *cobra.Command, g *Globals, f *serveFlags) error {
		return runDesktop(cmd, g, f, false, 0)
	}
	register(func(g *Globals) *cobra.Command {
		var f serveFlags
		var hidden bool
		var release time.Duration
		cmd := &cobra.Command{
			Use:   "desktop",
			Short: "Run the desktop app (what a bare `gatehouse` does); --start-hidden for login autostart",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				return runDesktop(cmd, g, &f, hidden, release)
			},
		}
		f.add(cmd.Flags())
		cmd.Flags().BoolVar(&hidden, "start-hidden", false, "start with the window hidden (the tray, a notification or a second launch shows it); used by the login autostart entry")
		cmd.Flags().DurationVar(&release, "window-release", 0, "how long a hidden window keeps its process before it is released (default 30s)")
		_ = cmd.Flags().MarkHidden("window-release")
		return cmd
	})
}

// handOff, in the desktop build, passes the app to the small gatehouse
// next to it (see desktop_window.go); here there is nothing to hand off.
var handOff = func() error { return nil }

// windowProgram is the program that draws the window.
var windowProgram = func() (string, error) { return sibling(desktopProgram) }

// runDesktop runs the desktop app, or the headless daemon when there is no
// display to put a window on or no window program to put there.
func runDesktop(cmd *cobra.Command, g *Globals, f *serveFlags, startHidden bool, release time.Duration) error {
	if !desktop.HasDisplay(runtime.GOOS, os.Getenv) {
		fmt.Fprintln(g.Stderr, "gatehouse: no display (DISPLAY and WAYLAND_DISPLAY are unset), so no window; starting the headless daemon (same as `gatehouse serve`).")
		return runServe(cmd, g, f)
	}
	if err := handOff(); err != nil {
		return err
	}
	win, err := windowProgram()
	if err != nil {
		fmt.Fprintf(g.Stderr, "gatehouse: the window program %s is not installed next to this gatehouse, so no window; starting the headless daemon (same as `gatehouse serve`). `make build` builds both.\n", desktopProgram)
		if os.Getenv("GATEHOUSE_DEBUG") != "" {
			fmt.Fprintf(g.Stderr, "  detail: %v\n", err)
		}
		return runServe(cmd, g, f)
	}
	opts, err := prepareServe(cmd, g, f)
	if err != nil {
		return err
	}
	common := []string{"--data", opts.DataDir}
	if g.Config != "" {
		common = append(common, "--config", g.Config)
	}
	common = append(common, "--log-level", g.LogLevel)
	var tray []string
	if exe, err := trayProgram(); err == nil {
		tray = append(append([]string{exe}, common...), "tray")
	} else {
		opts.Logger.Warn("tray icon not started: cannot find the gatehouse program", "err", err)
	}
	err = desktop.Run(cmd.Context(), desktop.Options{
		Daemon:       opts,
		StartHidden:  startHidden,
		Window:       append(append([]string{win}, common...), "window"),
		Tray:         tray,
		Args:         os.Args[1:],
		ReleaseAfter: release,
		Logger:       opts.Logger,
		Stderr:       g.Stderr,
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

// trayProgram runs the tray: the small gatehouse (the tray speaks D-Bus in
// pure Go on Linux), this program where that is missing.
func trayProgram() (string, error) {
	if p, err := sibling(lightProgram); err == nil {
		return p, nil
	}
	return os.Executable()
}
