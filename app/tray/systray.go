//go:build desktop

package tray

import (
	"context"
	"errors"
	"sync"

	"github.com/getlantern/systray"
)

// Run shows the tray icon and blocks until the person picks Quit or ctx
// ends. It must be called on the main goroutine (GTK and Cocoa need the
// main thread; the systray package locks it in init).
func Run(ctx context.Context, o Options) error {
	if o.Client == nil {
		return errors.New("tray: Options.Client is required")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g := &gui{}
	c := newController(o, g.apply)
	systray.Run(func() { g.ready(ctx, c) }, cancel)
	return nil
}

// gui owns the systray items. Every systray call here queues work for the
// GUI thread and returns at once, so nothing the daemon does can block the
// menu.
type gui struct {
	mu      sync.Mutex
	summary *systray.MenuItem
	pause   *systray.MenuItem
	shown   bool
	last    View
}

func (g *gui) ready(ctx context.Context, c *controller) {
	systray.SetTitle("Gatehouse")
	g.mu.Lock()
	g.summary = systray.AddMenuItem("Gatehouse", "")
	g.summary.Disable()
	systray.AddSeparator()
	open := systray.AddMenuItem(LabelOpen, "Show the Gatehouse window")
	g.pause = systray.AddMenuItem(LabelPause, "New tool calls wait until you resume")
	kill := systray.AddMenuItem(LabelKill, "Kill every agent's processes, deny pending approvals and refuse new calls until you resume")
	systray.AddSeparator()
	quit := systray.AddMenuItem(LabelQuit, "Close the tray icon; agents keep running")
	g.mu.Unlock()

	c.Show()
	go c.Run(ctx)

	// systray drops a click when nobody is receiving on the item's
	// channel, so each item has a receiver that only hands the work to a
	// goroutine of its own. The switches outlive a Quit picked right after
	// them.
	bg := context.WithoutCancel(ctx)
	go onClick(ctx, kill, func() { c.Kill(bg) })
	go onClick(ctx, g.pause, func() { c.TogglePause(bg) })
	go onClick(ctx, open, func() { c.Open() })
	go onClick(ctx, quit, systray.Quit)
	go func() {
		<-ctx.Done()
		systray.Quit()
	}()
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

// apply shows v, touching only what changed (each icon change writes a
// temporary file on Linux).
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
