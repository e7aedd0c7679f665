package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gatehouse-dev/gatehouse/app/client"
	"github.com/gatehouse-dev/gatehouse/app/desktop"
)

func init() {
	runDefault = func(cmd *cobra.Command, g *Globals, f *serveFlags) error {
		return runDesktop(cmd, g, f, false, 0, false)
	}
	register(func(g *Globals) *cobra.Command {
		var f serveFlags
		var hidden, spare bool
		var release time.Duration
		cmd := &cobra.Command{
			Use:   "desktop",
			Short: "Run the desktop app (what a bare `gatehouse` does); --start-hidden for login autostart",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				return runDesktop(cmd, g, &f, hidden, release, !spare)
			},
		}
		f.add(cmd.Flags())
		cmd.Flags().BoolVar(&hidden, "start-hidden", false, "start with the window hidden (the tray, a notification or a second launch shows it); used by the login autostart entry")
		cmd.Flags().DurationVar(&release, "window-release", 0, "how long a hidden window keeps its process before it is released (default 30s)")
		_ = cmd.Flags().MarkHidden("window-release")
		cmd.Flags().BoolVar(&spare, "window-spare", true, "keep a spare window process (no window, no WebKit) while the window is released, so it shows sooner")
		_ = cmd.Flags().MarkHidden("window-spare")
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
func runDesktop(cmd *cobra.Command, g *Globals, f *serveFlags, startHidden bool, release time.Duration, noSpare bool) error {
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
	if dir, st, ok := runningDaemon(cmd, g); ok {
		return attachDesktop(cmd, g, win, dir, st)
	}
	opts, err := prepareServe(cmd, g, f)
	if err != nil {
		return err
	}
	common := windowArgs(g, opts.DataDir)
	var tray []string
	if exe, err := trayProgram(); err == nil {
		tray = append(append([]string{exe}, globalArgs(g, opts.DataDir)...), "tray")
	} else {
		opts.Logger.Warn("tray icon not started: cannot find the gatehouse program", "err", err)
	}
	err = desktop.Run(cmd.Context(), desktop.Options{
		Daemon:       opts,
		StartHidden:  startHidden,
		Window:       append([]string{win}, common...),
		Tray:         tray,
		Args:         os.Args[1:],
		ReleaseAfter: release,
		NoSpare:      noSpare,
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

// globalArgs are the flags every process the app starts takes.
func globalArgs(g *Globals, dir string) []string {
	args := []string{"--data", dir}
	if g.Config != "" {
		args = append(args, "--config", g.Config)
	}
	return append(args, "--log-level", g.LogLevel)
}

// windowArgs are the window process's arguments, after its program.
func windowArgs(g *Globals, dir string) []string {
	return append(globalArgs(g, dir), "window")
}

// daemonStatus is what an attached window says about the daemon it opens.
type daemonStatus struct {
	PID    int    `json:"pid"`
	Listen string `json:"listen"`
}

// runningDaemon reports whether a daemon (a `gatehouse serve`, or another
// app) already answers on the data dir's control socket.
func runningDaemon(cmd *cobra.Command, g *Globals) (string, daemonStatus, bool) {
	var st daemonStatus
	cfg, err := loadConfig(g)
	if err != nil {
		return "", st, false // the start that follows says what is wrong
	}
	dir, err := dataDir(g, cfg.Data)
	if err != nil {
		return "", st, false
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), 3*time.Second)
	defer cancel()
	if err := client.New(dir).Get(ctx, "/api/v1/status", nil, &st); err != nil {
		return "", st, false
	}
	return dir, st, true
}

// attachDesktop opens the window onto the daemon already running on dir:
// a bare `gatehouse` while `gatehouse serve` runs.
func attachDesktop(cmd *cobra.Command, g *Globals, win, dir string, st daemonStatus) error {
	// The daemon may be the desktop app's own: then its window is shown.
	if desktop.ShowRunning(dir) {
		fmt.Fprintf(g.Stderr, "gatehouse: %v\n", desktop.ErrAlreadyRunning)
		return nil
	}
	fmt.Fprintf(g.Stderr, "gatehouse: a Gatehouse daemon already runs on %s (pid %d, %s); opening the window onto it. Closing the window leaves it running.\n", dir, st.PID, st.Listen)
	var ignored []string
	for _, name := range []string{"listen", "workspace", "mode", "public"} {
		if fl := cmd.Flags().Lookup(name); fl != nil && fl.Changed {
			ignored = append(ignored, "--"+name)
		}
	}
	if len(ignored) > 0 {
		fmt.Fprintf(g.Stderr, "gatehouse: %s apply to a daemon this launch would start; the running one keeps its own settings.\n", strings.Join(ignored, ", "))
	}
	c := client.New(dir)
	err := desktop.Attach(cmd.Context(), desktop.AttachOptions{
		DataDir: dir,
		Window:  append([]string{win}, windowArgs(g, dir)...),
		Args:    os.Args[1:],
		Alive: func(ctx context.Context) bool {
			ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			// A slow answer is a busy daemon, not a stopped one.
			var st daemonStatus
			return !errors.Is(c.Get(ctx, "/api/v1/status", nil, &st), client.ErrNoDaemon)
		},
		Logger: g.Logger(),
		Stderr: g.Stderr,
	})
	if errors.Is(err, desktop.ErrAlreadyRunning) {
		fmt.Fprintf(g.Stderr, "gatehouse: %v\n", err)
		return nil
	}
	return err
}

// trayProgram runs the tray: the small gatehouse (the tray speaks D-Bus in
// pure Go on Linux), this program where that is missing.
func trayProgram() (string, error) {
	if p, err := sibling(lightProgram); err == nil {
		return p, nil
	}
	return os.Executable()
}
