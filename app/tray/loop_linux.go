//go:build linux

package tray

import (
	"context"
	"fmt"
	"log/slog"

	"fyne.io/systray"
	"github.com/godbus/dbus/v5"
)

// checkSession makes sure the session bus answers before systray starts:
// systray only logs a failed connection and then waits forever.
func checkSession() error {
	if _, err := dbus.SessionBus(); err != nil {
		return fmt.Errorf("the tray needs the desktop's D-Bus session bus: %w", err)
	}
	return nil
}

// runLoop exports the icon and menu on the session bus and blocks until
// ctx ends. systray calls onReady in a goroutine of its own while it
// exports, so the first view waits for both (ready) before it is applied:
// a property set in between would be lost.
func runLoop(onReady, ready func(), ctx context.Context, cancel context.CancelFunc) {
	start, end := systray.RunWithExternalLoop(onReady, cancel)
	start()
	ready()
	<-ctx.Done()
	end()
}

// watchTrayHost says in the log whether the icon can be seen, and keeps
// saying so as tray hosts come and go.
func watchTrayHost(ctx context.Context, logger *slog.Logger) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	quietSystray(logger)
	go watchHost(ctx, logger)
}
