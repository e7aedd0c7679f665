//go:build desktop

package desktop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
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

	"github.com/gatehouse-dev/gatehouse/backend/daemon"
)

// Options configure the desktop app.
type Options struct {
	// Daemon is the daemon to host, exactly as `gatehouse serve` would run
	// it (its Ready hook is taken over here).
	Daemon daemon.Options
	// StartHidden keeps the window hidden at start (login autostart); the
	// tray or a second launch shows it.
	StartHidden bool
	// Tray is the argv of the tray process; empty starts none.
	Tray []string
	// Args are this launch's arguments, handed to an already running app.
	Args   []string
	Logger *slog.Logger
	Stderr io.Writer
}

// pageReportJS tells the app what the page shows: its title (which carries
// the pending count), whether the app shell rendered, the number of cards,
// the live-feed state and whether the page is visible. It runs after every
// page load and reports only changes. The frontend needs no hook for it.
const pageReportJS = `(function () {
  if (window.__gatehouseReport) return;
  window.__gatehouseReport = true;
  var last = '';
  function report() {
    var conn = document.querySelector('.conn');
    var r = {
      title: document.title,
      app: !!document.querySelector('.app'),
      cards: document.querySelectorAll('.cards > *').length,
      conn: conn ? (conn.className.match(/conn-([a-z]+)/) || [, ''])[1] : '',
      visibility: document.visibilityState
    };
    var s = JSON.stringify(r);
    if (s === last || !window.runtime) return;
    last = s;
    window.runtime.EventsEmit('gatehouse:page', r);
  }
  new MutationObserver(report).observe(document.head, { subtree: true, childList: true, characterData: true });
  document.addEventListener('visibilitychange', report);
  setInterval(report, 1000);
  report();
})();`

// app is the running window's state.
type app struct {
	logger *slog.Logger
	// stopping reports a stop requested from outside (SIGTERM).
	stopping func() bool

	mu       sync.Mutex
	wctx     context.Context // Wails' context, set at startup
	hidden   bool            // closed to the tray, or started hidden
	quitting bool
	closing  bool // a close was let through to end the main loop
	page     PageReport
	reported bool
}

// Run hosts the daemon and shows the window. It returns when the person
// quits (menu, tray) or ctx ends (SIGTERM), after the daemon and the tray
// stopped. It must be called on the main goroutine, locked to the main OS
// thread (GTK and Cocoa require it).
func Run(ctx context.Context, o Options) error {
	logger := o.Logger
	if logger == nil {
		logger = slog.Default()
	}
	stderr := o.Stderr
	if stderr == nil {
		stderr = os.Stderr
	}
	id := UniqueID(o.Daemon.DataDir)
	// Single instance, before anything else: a second launch on this data
	// dir shows the first window instead of starting a second daemon.
	if raiseRunning(id, o.Args) {
		return ErrAlreadyRunning
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ready := make(chan *daemon.Daemon, 1)
	dopts := o.Daemon
	dopts.Ready = func(d *daemon.Daemon) { ready <- d }
	daemonDone := make(chan struct{})
	var daemonErr error
	go func() {
		defer close(daemonDone)
		daemonErr = daemon.Run(ctx, dopts)
	}()
	var d *daemon.Daemon
	select {
	case d = <-ready:
	case <-daemonDone:
		if daemonErr == nil {
			daemonErr = errors.New("the daemon stopped before it was ready")
		}
		return daemonErr
	}

	a := &app{logger: logger, hidden: o.StartHidden, stopping: func() bool { return ctx.Err() != nil }}
	// The tray starts here, on the main thread (see startTray).
	tray := startTray(o.Tray, stderr, logger)
	notifier := newNotifier(func() { a.show("notification clicked") })
	go (&approvalWatcher{api: d.LocalHandler(), hidden: a.isHidden, notify: notifier, logger: logger}).run(ctx)
	// Quit when asked from outside (SIGTERM ends ctx) or when the daemon
	// stops on its own. A quit that comes before the main loop runs is
	// lost, so it is repeated until the window is gone.
	windowDone := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
		case <-daemonDone:
			logger.Error("the daemon stopped; closing the window", "err", daemonErr)
		case <-windowDone:
			return
		}
		a.quit()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-windowDone:
				return
			case <-tick.C:
				a.requestQuit()
			}
		}
	}()

	err := wails.Run(&options.App{
		Title:            AppName,
		Width:            1120,
		Height:           760,
		MinWidth:         720,
		MinHeight:        480,
		StartHidden:      o.StartHidden,
		BackgroundColour: options.NewRGB(0xf6, 0xf7, 0xf9),
		AssetServer: &assetserver.Options{
			// No Assets: every request goes to the daemon, which serves the
			// embedded UI and the control API in-process (the same UI a
			// browser gets from `gatehouse serve`).
			Handler: windowHandler(ctx, d.LocalHandler()),
		},
		Menu:               a.menu(),
		Logger:             wailsLogger{logger},
		LogLevel:           wailslogger.WARNING,
		LogLevelProduction: wailslogger.WARNING,
		OnStartup:          a.startup,
		OnDomReady:         func(wctx context.Context) { runtime.WindowExecJS(wctx, pageReportJS) },
		// Closing the window hides it; the daemon keeps running. This is
		// HideWindowOnClose done here, so the app knows the window is out of
		// sight (for notifications) and Quit still gets through.
		OnBeforeClose: a.beforeClose,
		SingleInstanceLock: &options.SingleInstanceLock{
			UniqueId: id,
			OnSecondInstanceLaunch: func(options.SecondInstanceData) {
				a.show("Gatehouse was launched again")
			},
		},
		Linux: &linux.Options{
			Icon:             AppIcon(256),
			ProgramName:      "gatehouse",
			WebviewGpuPolicy: linux.WebviewGpuPolicyNever,
		},
		Mac: &mac.Options{
			About: &mac.AboutInfo{Title: AppName, Message: "Version " + o.Daemon.Version, Icon: AppIcon(256)},
		},
	})
	close(windowDone)
	if err != nil {
		err = fmt.Errorf("desktop window: %w", err)
	}
	logger.Info("window closed; stopping Gatehouse")
	cancel()
	tray.stop(3 * time.Second)
	notifier.Close()
	select {
	case <-daemonDone:
	case <-time.After(15 * time.Second):
		return errors.Join(err, errors.New("the daemon did not stop within 15s"))
	}
	if daemonErr != nil && !errors.Is(daemonErr, context.Canceled) {
		err = errors.Join(err, daemonErr)
	}
	return err
}

func (a *app) startup(wctx context.Context) {
	a.mu.Lock()
	a.wctx = wctx
	quitting := a.quitting
	a.mu.Unlock()
	runtime.EventsOn(wctx, "gatehouse:page", a.onPage)
	if quitting {
		runtime.Quit(wctx)
	}
}

// requestQuit asks Wails again to end the main loop.
func (a *app) requestQuit() {
	a.mu.Lock()
	wctx := a.wctx
	a.mu.Unlock()
	if wctx != nil {
		runtime.Quit(wctx)
	}
}

// onPage mirrors the page title into the window title (so the taskbar shows
// "(2) Gatehouse") and logs what the page shows when it changes.
func (a *app) onPage(data ...any) {
	r, ok := parsePageReport(data)
	if !ok {
		return
	}
	a.mu.Lock()
	prev, had := a.page, a.reported
	a.page, a.reported = r, true
	wctx := a.wctx
	a.mu.Unlock()
	if had && prev == r {
		return
	}
	if wctx != nil && (!had || prev.Title != r.Title) {
		runtime.WindowSetTitle(wctx, windowTitle(r.Title))
	}
	a.logger.Info("desktop page", "title", r.Title, "app", r.App, "cards", r.Cards, "feed", r.Conn, "visible", r.Visible)
}

// isHidden reports whether the person cannot see the window: closed to the
// tray, started hidden, or the page says it is not visible (minimised).
func (a *app) isHidden() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.hidden || (a.reported && !a.page.Visible)
}

func (a *app) beforeClose(wctx context.Context) (prevent bool) {
	// SIGTERM reaches Wails' handler (which closes the window, landing
	// here) and ours (which quits) at the same moment; a short grace keeps
	// a stop from being taken for the close button. Wails calls this off
	// the UI thread, so the wait blocks nothing.
	for i := 0; i < 10 && !a.isQuitting(); i++ {
		time.Sleep(15 * time.Millisecond)
	}
	a.mu.Lock()
	quitting := a.quitting || a.stopping()
	if !quitting {
		a.hidden = true
	}
	// Wails ends the main loop with gtk_main_quit from whichever goroutine
	// asked; a second one racing the window's destruction on the UI thread
	// crashed GTK (SIGTERM reaches Wails' handler and ours). Let one through.
	again := quitting && a.closing
	if quitting {
		a.closing = true
	}
	a.mu.Unlock()
	if again {
		return true
	}
	if quitting {
		return false
	}
	runtime.WindowHide(wctx)
	a.logger.Info("window hidden; Gatehouse keeps running (quit from the menu or the tray)")
	return true
}

func (a *app) isQuitting() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.quitting || a.stopping()
}

// show brings the window back (second launch, notification click).
func (a *app) show(why string) {
	a.logger.Info("showing the window", "why", why)
	a.mu.Lock()
	wctx := a.wctx
	a.hidden = false
	a.mu.Unlock()
	if wctx == nil {
		return
	}
	runtime.WindowShow(wctx)
	runtime.WindowUnminimise(wctx)
	// Raise it above other windows without keeping it there.
	runtime.WindowSetAlwaysOnTop(wctx, true)
	runtime.WindowSetAlwaysOnTop(wctx, false)
}

func (a *app) hide() {
	a.mu.Lock()
	wctx := a.wctx
	a.hidden = true
	a.mu.Unlock()
	if wctx != nil {
		runtime.WindowHide(wctx)
	}
}

// quit stops the app: the window closes for real, then Run stops the tray
// and the daemon.
func (a *app) quit() {
	a.mu.Lock()
	already := a.quitting
	a.quitting = true
	wctx := a.wctx
	a.mu.Unlock()
	if already {
		return
	}
	if wctx != nil {
		runtime.Quit(wctx)
	}
}

func (a *app) menu() *menu.Menu {
	m := menu.NewMenu()
	if goruntime.GOOS == "darwin" {
		m.Append(menu.AppMenu())
		m.Append(menu.EditMenu())
	}
	g := m.AddSubmenu(AppName)
	g.AddText("Hide Window", keys.CmdOrCtrl("w"), func(*menu.CallbackData) { a.hide() })
	g.AddSeparator()
	g.AddText("Quit Gatehouse", keys.CmdOrCtrl("q"), func(*menu.CallbackData) { a.quit() })
	return m
}
