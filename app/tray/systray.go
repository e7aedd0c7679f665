//go:build linux || (darwin && desktop)

package tray

import (
	"context"
	"errors"
	"sync"
	"time"

	"fyne.io/systray"
)

// Run shows the tray icon and blocks until the person picks Quit or ctx
// ends. On Linux the icon is a StatusNotifierItem spoken over D-Bus in
// pure Go (no GTK, no cgo), so the tray is a small process; on macOS it
// needs the main thread and cgo (the desktop build).
func Run(ctx context.Context, o Options) error {
	if o.Client == nil {
		return errors.New("tray: Options.Client is required")
	}
	if err := checkSession(); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	watchTrayHost(ctx, o.Logger)
	g := &gui{}
	c := newController(o, g.apply)
	c.stop = cancel
	built := make(chan struct{})
	runLoop(func() { g.build(o); close(built) }, func() {
		<-built
		g.start(ctx, c)
	}, ctx, cancel)
	return nil
}

// gui owns the systray items. Every systray call returns at once, so
// nothing the daemon does can block the menu.
type gui struct {
	mu      sync.Mutex
	summary *systray.MenuItem
	pause   *systray.MenuItem
	open    *systray.MenuItem
	kill    *systray.MenuItem
	quit    *systray.MenuItem
	shown   bool
	last    View
}

// build adds the menu items; the icon and labels follow in apply.
func (g *gui) build(o Options) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.summary = systray.AddMenuItem("Gatehouse", "")
	g.summary.Disable()
	systray.AddSeparator()
	g.open = systray.AddMenuItem(LabelOpen, "Show the Gatehouse window")
	g.pause = systray.AddMenuItem(LabelPause, "New tool calls wait until you resume")
	g.kill = systray.AddMenuItem(LabelKill, "Kill every agent's processes, deny pending approvals and refuse new calls until you resume")
	systray.AddSeparator()
	if o.QuitApp != nil {
		g.quit = systray.AddMenuItem(LabelQuitApp, "Quit Gatehouse: the window, the daemon and this icon; waiting calls are denied")
	} else {
		g.quit = systray.AddMenuItem(LabelQuit, "Close the tray icon; agents keep running")
	}
}

// start shows the first view and wires the clicks. It runs once the icon
// is on the bus, so the first icon and title reach the panel.
func (g *gui) start(ctx context.Context, c *controller) {
	c.Show()
	go c.Run(ctx)
	// systray drops a click when nobody is receiving on the item's
	// channel, so each item has a receiver that only hands the work to a
	// goroutine of its own. The switches outlive a Quit picked right after
	// them.
	bg := context.WithoutCancel(ctx)
	go onClick(ctx, g.kill, func() { c.Kill(bg) })
	go onClick(ctx, g.pause, func() { c.TogglePause(bg) })
	go onClick(ctx, g.open, func() { c.Open() })
	go onClick(ctx, g.quit, func() { c.Quit() })
	if c.o.MenuOpened != nil {
		go onOpen(ctx, c.o.MenuOpened)
	}
}

// onOpen runs f when the menu opens, at most once every few seconds (the
// panel may report every hover).
func onOpen(ctx context.Context, f func()) {
	var last time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-systray.TrayOpenedCh:
			if time.Since(last) > 5*time.Second {
				last = time.Now()
				go f()
			}
		}
	}
}

func onClick(ctx context.Context, item *systray.MenuItem, f func()) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-item.ClickedCh:
			go f()
		}
	}
}

// apply shows v, touching only what changed.
func (g *gui) apply(v View) {
	g.mu.Lock()
	defer g.mu.Unlock()
	first := !g.shown
	if first || v.Icon != g.last.Icon {
		systray.SetIcon(v.Icon.PNG())
	}
	if first || v.Title != g.last.Title {
		systray.SetTitle(v.Title)
		systray.SetTooltip(v.Title)
	}
	if first || v.Summary != g.last.Summary {
		g.summary.SetTitle(v.Summary)
	}
	if first || v.PauseLabel != g.last.PauseLabel {
		g.pause.SetTitle(v.PauseLabel)
	}
	if first || v.PauseEnabled != g.last.PauseEnabled {
		if v.PauseEnabled {
			g.pause.Enable()
		} else {
			g.pause.Disable()
		}
	}
	g.shown, g.last = true, v
}
