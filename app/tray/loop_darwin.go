//go:build darwin && desktop

package tray

import (
	"context"
	"log/slog"

	"fyne.io/systray"
)

func checkSession() error { return nil }

// runLoop runs Cocoa's loop on the main thread until Quit.
func runLoop(onReady, ready func(), ctx context.Context, cancel context.CancelFunc) {
	go func() {
		<-ctx.Done()
		systray.Quit()
	}()
	systray.Run(func() { onReady(); go ready() }, cancel)
}

// watchTrayHost has nothing to watch: the menu bar always shows the icon.
func watchTrayHost(context.Context, *slog.Logger) {}
