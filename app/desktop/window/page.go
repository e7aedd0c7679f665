package window

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// AppName is the window title's base and what the page's title carries.
const AppName = "Gatehouse"

// pageReportJS tells the window what the page shows: its title (which
// carries the pending count), whether the app shell rendered, the number
// of cards, the live-feed state and whether the page is visible. The page
// loads it first thing (see pagescript.go), and it runs again after every
// page load in case it did not; it reports only changes. The frontend
// needs no hook for it.
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
  // At most one report a frame, however busy the page is, sent once the
  // frame is painted (frames stop while hidden; visibilitychange and the
  // interval cover that).
  var queued = false;
  function soon() {
    if (queued) return;
    queued = true;
    requestAnimationFrame(function () { setTimeout(function () { queued = false; report(); }, 0); });
  }
  new MutationObserver(soon).observe(document.documentElement, { subtree: true, childList: true, characterData: true });
  document.addEventListener('visibilitychange', report);
  setInterval(report, 1000);
  report();
})();`

// PageReport is what the page in the window says about itself.
type PageReport struct {
	Title string // document.title, e.g. "(1) Gatehouse"
	App   bool   // the app shell rendered (not the login screen, not a blank page)
	Cards int    // approval cards in the DOM
	Conn  string // the live-feed state shown in the status bar: live, polling, …
	// Visible is document.visibilityState == "visible".
	Visible bool
}

// parsePageReport reads the report from a Wails event's data (a decoded
// JSON object).
func parsePageReport(data []any) (PageReport, bool) {
	if len(data) == 0 {
		return PageReport{}, false
	}
	m, ok := data[0].(map[string]any)
	if !ok {
		return PageReport{}, false
	}
	var r PageReport
	r.Title, _ = m["title"].(string)
	r.App, _ = m["app"].(bool)
	if n, ok := m["cards"].(float64); ok && n >= 0 && n < 1e6 {
		r.Cards = int(n)
	}
	r.Conn, _ = m["conn"].(string)
	v, _ := m["visibility"].(string)
	r.Visible = v == "visible"
	return r, true
}

// windowTitle is the OS window title for a page title: the page's own
// (which carries the pending count, "(2) Gatehouse") when it is a sane
// Gatehouse title, else the plain app name.
func windowTitle(pageTitle string) string {
	t := strings.TrimSpace(pageTitle)
	if t == "" || len(t) > 120 || !utf8.ValidString(t) || !strings.Contains(t, AppName) {
		return AppName
	}
	for _, r := range t {
		if !unicode.IsPrint(r) {
			return AppName
		}
	}
	return t
}

// quitQuestion is the question the window asks before a quit denies the
// calls still waiting.
func quitQuestion(waiting int) (title, text, detail string) {
	title = "Quit Gatehouse?"
	if waiting == 1 {
		text = "1 call is waiting for you; quitting denies it."
		detail = "Its agent is told the call was denied. Keep Gatehouse running to answer it first."
	} else {
		text = strconv.Itoa(waiting) + " calls are waiting for you; quitting denies them."
		detail = "Their agents are told the calls were denied. Keep Gatehouse running to answer them first."
	}
	return title, text, detail
}
