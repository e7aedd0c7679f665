//go:build desktop

package window

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	goruntime "runtime"
	"sync"
	"time"

	"github.com/wailsapp/wails/v2"
	wailslogger "github.com/wailsapp/wails/v2/pkg/logger"
	"github.com/wailsapp/wails/v2/pkg/menu"
	"github.com/wailsapp/wails/v2/pkg/menu/keys"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/options/mac"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/gatehouse-dev/gatehouse/app/client"
)

// Options configure the window process.
type Options struct {
	// DataDir holds control.sock, through which the page reaches the daemon.
	DataDir     string
	StartHidden bool
	// Commands come from the app; their end (the app went away) closes
	// the window.
	Commands io.Reader
	// Events go to the app.
	Events  io.Writer
	Icon    []byte
	Version string
	Logger  *slog.Logger
}

// Default window size; the page's header fits it (see frontend/e2e).
const (
	Width  = 1120
	Height = 760
)

// win is the running window's state.
type win struct {
	logger *slog.Logger
	// stopping reports a stop requested from outside (SIGTERM).
	stopping func() bool

	evMu   sync.Mutex
	events io.Writer // nil once writing failed: the app is gone

	mu         sync.Mutex
	wctx       context.Context // Wails' context, set at startup
	hidden     bool            // closed, or started hidden
	quitting   bool
	closing    bool // a close was let through to end the main loop
	page       PageReport
	reported   bool
	sentVis    *bool
	sentRdy    bool
	sentClosed bool
	asking     bool
}

// Run shows the window and blocks until the app says exit, the app goes
// away, the person quits with no app to ask, or ctx ends (SIGTERM). It must
// be called on the main goroutine, locked to the main OS thread (GTK and
// Cocoa require it).
func Run(ctx context.Context, o Options) error {
	logger := o.Logger
	if logger == nil {
		logger = slog.Default()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	setProgram()
	w := &win{logger: logger, hidden: o.StartHidden, events: o.Events, stopping: func() bool { return ctx.Err() != nil }}
	if o.Commands != nil {
		go w.readCommands(o.Commands)
	}
	// A quit that comes before the main loop runs is lost, so it is
	// repeated until the window is gone.
	windowDone := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
		case <-windowDone:
			return
		}
		w.quit()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-windowDone:
				return
			case <-tick.C:
				w.requestQuit()
			}
		}
	}()
	err := wails.Run(&options.App{
		Title:            AppName,
		Width:            Width,
		Height:           Height,
		MinWidth:         720,
		MinHeight:        480,
		StartHidden:      o.StartHidden,
		BackgroundColour: options.NewRGB(0xf6, 0xf7, 0xf9),
		AssetServer: &assetserver.Options{
			// No Assets: every request goes to the daemon, which serves the
			// embedded UI and the control API (the same UI a browser gets
			// from `gatehouse serve`).
			Handler: withPageScript(Proxy(ctx, client.Socket(o.DataDir), logger)),
		},
		Menu:               w.menu(),
		Logger:             wailsLogger{logger},
		LogLevel:           wailslogger.WARNING,
		LogLevelProduction: wailslogger.WARNING,
		OnStartup:          w.startup,
		OnDomReady:         func(wctx context.Context) { runtime.WindowExecJS(wctx, pageReportJS) },
		// Closing the window hides it; the app decides when to end this
		// process. This is HideWindowOnClose done here, so the app learns
		// the window is out of sight and Quit still gets through.
		OnBeforeClose: w.beforeClose,
		Linux: &linux.Options{
			Icon:             o.Icon,
			ProgramName:      "gatehouse",
			WebviewGpuPolicy: linux.WebviewGpuPolicyNever,
		},
		Mac: &mac.Options{
			About: &mac.AboutInfo{Title: AppName, Message: "Version " + o.Version, Icon: o.Icon},
		},
	})
	close(windowDone)
	if err != nil {
		return fmt.Errorf("desktop window: %w", err)
	}
	logger.Info("window closed")
	return nil
}

// send tells the app something; once that fails the app is gone and the
// window acts alone (a quit then quits).
func (w *win) send(e Event) bool {
	w.evMu.Lock()
	defer w.evMu.Unlock()
	return w.sendLocked(e)
}

// sendLocked is send for callers holding evMu.
func (w *win) sendLocked(e Event) bool {
	if w.events == nil {
		return false
	}
	if _, err := w.events.Write(Line(e)); err != nil {
		w.logger.Warn("window: the desktop app does not listen any more", "err", err)
		w.events = nil
		return false
	}
	return true
}

// readCommands runs the app's commands until its end of the pipe closes.
func (w *win) readCommands(r io.Reader) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		c, err := ParseCommand(sc.Bytes())
		if err != nil {
			w.logger.Error("window: ignoring a command", "err", err)
			continue
		}
		switch c.Cmd {
		case CmdShow:
			w.show()
		case CmdHide:
			w.hide()
		case CmdConfirmQuit:
			go w.confirmQuit(c.Waiting)
		case CmdExit:
			w.quit()
		}
	}
	if err := sc.Err(); err != nil && !errors.Is(err, io.EOF) {
		w.logger.Warn("window: reading the app's commands", "err", err)
	}
	w.quit()
}

func (w *win) startup(wctx context.Context) {
	w.mu.Lock()
	w.wctx = wctx
	quitting := w.quitting
	w.mu.Unlock()
	runtime.EventsOn(wctx, "gatehouse:page", w.onPage)
	if quitting {
		runtime.Quit(wctx)
	}
	w.report()
}

// requestQuit asks Wails again to end the main loop.
func (w *win) requestQuit() {
	w.mu.Lock()
	wctx := w.wctx
	w.mu.Unlock()
	if wctx != nil {
		runtime.Quit(wctx)
	}
}

// onPage mirrors the page title into the window title (so the taskbar
// shows "(2) Gatehouse") and logs what the page shows when it changes.
func (w *win) onPage(data ...any) {
	r, ok := parsePageReport(data)
	if !ok {
		return
	}
	w.mu.Lock()
	prev, had := w.page, w.reported
	w.page, w.reported = r, true
	wctx := w.wctx
	w.mu.Unlock()
	if had && prev == r {
		return
	}
	if wctx != nil && (!had || prev.Title != r.Title) {
		runtime.WindowSetTitle(wctx, windowTitle(r.Title))
	}
	w.logger.Info("desktop page", "title", r.Title, "app", r.App, "cards", r.Cards, "feed", r.Conn, "visible", r.Visible)
	w.report()
}

// report tells the app when what the person can see changed: the window
// shown or hidden, minimised (the page says it is not visible), or the
// page's app shell rendered.
func (w *win) report() { w.sendReport(false) }

// sendReport is report; always sends it even when nothing changed, so a
// show command is always answered (the app times it from its request).
func (w *win) sendReport(always bool) {
	// One report at a time, from its reading of the state to its line:
	// two racing (the show command, the page saying it is visible) could
	// otherwise leave the app with the older one, a shown window it takes
	// for hidden and releases.
	w.evMu.Lock()
	defer w.evMu.Unlock()
	w.mu.Lock()
	vis := !w.hidden && (!w.reported || w.page.Visible)
	ready, closed := w.page.App, w.hidden
	same := w.sentVis != nil && *w.sentVis == vis && w.sentRdy == ready && w.sentClosed == closed
	if !same {
		w.sentVis, w.sentRdy, w.sentClosed = &vis, ready, closed
	}
	w.mu.Unlock()
	if !same || always {
		w.sendLocked(Event{Ev: EvVisible, Visible: vis, Ready: ready, Closed: closed})
	}
}

func (w *win) beforeClose(wctx context.Context) (prevent bool) {
	// SIGTERM reaches Wails' handler (which closes the window, landing
	// here) and ours (which quits) at the same moment; a short grace keeps
	// a stop from being taken for the close button. Wails calls this off
	// the UI thread, so the wait blocks nothing.
	for i := 0; i < 10 && !w.isQuitting(); i++ {
		time.Sleep(15 * time.Millisecond)
	}
	w.mu.Lock()
	quitting := w.quitting || w.stopping()
	if !quitting {
		w.hidden = true
	}
	// Wails ends the main loop with gtk_main_quit from whichever goroutine
	// asked; a second one racing the window's destruction on the UI thread
	// crashed GTK (SIGTERM reaches Wails' handler and ours). Let one through.
	again := quitting && w.closing
	if quitting {
		w.closing = true
	}
	w.mu.Unlock()
	if again {
		return true
	}
	if quitting {
		return false
	}
	runtime.WindowHide(wctx)
	w.logger.Info("window hidden; Gatehouse keeps running (quit from the menu or the tray)")
	w.report()
	return true
}

func (w *win) isQuitting() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.quitting || w.stopping()
}

// setHidden records whether the window is hidden and returns its Wails
// context, nil before the window runs.
func (w *win) setHidden(hidden bool) context.Context {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.hidden = hidden
	return w.wctx
}

// claim sets flag (a field under mu) and says whether it was set
// already, with Wails' context: one quit, one question at a time.
func (w *win) claim(flag *bool) (was bool, wctx context.Context) {
	w.mu.Lock()
	defer w.mu.Unlock()
	was, *flag = *flag, true
	return was, w.wctx
}

func (w *win) show() {
	if wctx := w.setHidden(false); wctx != nil {
		runtime.WindowShow(wctx)
		runtime.WindowUnminimise(wctx)
		// Raise it above other windows without keeping it there.
		runtime.WindowSetAlwaysOnTop(wctx, true)
		runtime.WindowSetAlwaysOnTop(wctx, false)
	}
	w.sendReport(true)
}

func (w *win) hide() {
	if wctx := w.setHidden(true); wctx != nil {
		runtime.WindowHide(wctx)
	}
	w.report()
}

// quit ends the window process.
func (w *win) quit() {
	already, wctx := w.claim(&w.quitting)
	if already {
		return
	}
	if wctx != nil {
		runtime.Quit(wctx)
	}
}

// personQuits is Ctrl+Q: the app decides (it asks first when calls wait);
// without an app to ask, the window just closes.
func (w *win) personQuits() {
	if !w.send(Event{Ev: EvQuit}) {
		w.quit()
	}
}

// confirmQuit asks the person whether to quit although calls are waiting.
func (w *win) confirmQuit(waiting int) {
	busy, wctx := w.claim(&w.asking)
	if busy {
		return // the question is already on screen; its answer goes out
	}
	defer func() {
		w.mu.Lock()
		w.asking = false
		w.mu.Unlock()
	}()
	w.show()
	title, text, detail := quitQuestion(waiting)
	w.logger.Info("asking before quitting", "waiting", waiting)
	quit := askQuit(wctx, title, text, detail)
	w.logger.Info("quit question answered", "quit", quit)
	w.send(Event{Ev: EvQuitAnswer, Quit: quit})
}

func (w *win) menu() *menu.Menu {
	m := menu.NewMenu()
	if goruntime.GOOS == "darwin" {
		m.Append(menu.AppMenu())
		m.Append(menu.EditMenu())
	}
	g := m.AddSubmenu(AppName)
	g.AddText("Hide Window", keys.CmdOrCtrl("w"), func(*menu.CallbackData) {
		w.hide()
		w.logger.Info("window hidden; Gatehouse keeps running (quit from the menu or the tray)")
	})
	g.AddSeparator()
	g.AddText("Quit Gatehouse", keys.CmdOrCtrl("q"), func(*menu.CallbackData) { w.personQuits() })
	return m
}
