package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/gatehouse-dev/gatehouse/app/client"
	"github.com/gatehouse-dev/gatehouse/app/desktop"
	"github.com/gatehouse-dev/gatehouse/app/tray"
)

func init() {
	register(func(g *Globals) *cobra.Command {
		return &cobra.Command{
			Use:   "tray",
			Short: "Show the tray icon: what the agents do, pause and resume, and the kill switch",
			Long: `gatehouse tray shows an icon in the panel that follows the daemon: idle,
agents active, waiting for you, paused, stopped. Its menu opens Gatehouse,
pauses or resumes all agents, and has the kill switch ("Stop all agents now"),
which works even when the Gatehouse window is frozen or closed. The desktop
app starts it; next to a headless ` + "`gatehouse serve`" + ` run it yourself. It talks
to the daemon over DATA/control.sock and keeps retrying while the daemon is
down. Quit closes only the tray.`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				if !desktop.HasDisplay(runtime.GOOS, os.Getenv) {
					return userErrorf(nil, "the tray needs a desktop session and neither DISPLAY nor WAYLAND_DISPLAY is set; use `gatehouse kill`, `pause` and `resume` instead")
				}
				dir, err := dataDir(g, "")
				if err != nil {
					return err
				}
				unlock, err := lockTray(dir)
				if err != nil {
					return err
				}
				o := tray.Options{
					Client: client.New(dir),
					Dial:   func() *client.Client { return client.New(dir) },
					OpenUI: func() error { return openUI(dir) },
					Logger: g.Logger(),
				}
				if os.Getenv(desktop.TrayOfAppEnv) != "" {
					// Started by the desktop app: Quit quits the app.
					o.QuitApp = func() error { return desktop.RequestQuit(dir) }
					o.MenuOpened = func() { desktop.Prewarm(dir) }
				}
				err = tray.Run(cmd.Context(), o)
				unlock()
				if errors.Is(err, tray.ErrUnsupported) {
					// macOS: the tray needs cgo, which only the desktop
					// build has.
					return execDesktop("the tray icon")
				}
				if err != nil {
					return userErrorf(err, "the tray icon cannot start: %v", err)
				}
				return nil
			},
		}
	})
}

// lockTray makes sure one tray runs per data dir (the desktop app starts
// one; a second icon would only confuse).
func lockTray(dir string) (func(), error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, userErrorf(err, "cannot create the data directory %s: %v", dir, err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "tray.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, userErrorf(err, "cannot open %s: %v", filepath.Join(dir, "tray.lock"), err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, userErrorf(err, "a Gatehouse tray is already running for %s", dir)
		}
		return nil, userErrorf(err, "cannot lock %s: %v", f.Name(), err)
	}
	return func() { f.Close() }, nil
}

// openUI shows the Gatehouse window when the desktop app runs on this data
// dir; otherwise it does what `gatehouse open` does: a fresh login link,
// opened in the default browser.
func openUI(dir string) error {
	if desktop.ShowRunning(dir) {
		return nil
	}
	c := client.New(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out struct {
		URL string `json:"url"`
	}
	if err := c.Post(ctx, "/api/v1/login-links", nil, &out); err != nil {
		return err
	}
	if out.URL == "" {
		return errors.New("the daemon answered without a login link")
	}
	name := "xdg-open"
	if runtime.GOOS == "darwin" {
		name = "open"
	}
	cmd := exec.Command(name, out.URL)
	// The URL carries a token: keep it off our output.
	cmd.Stdout, cmd.Stderr = nil, nil
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", name, err)
	}
	go cmd.Wait() // reap it; the tray lives long
	return nil
}
