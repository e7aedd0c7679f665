package window

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httputil"

	"github.com/gatehouse-dev/gatehouse/app/client"
	"github.com/gatehouse-dev/gatehouse/backend/httpgate"
)

// Proxy serves the window's requests from the daemon over its control
// socket (sock), the same-user channel the CLI and the tray use: the page
// gets the UI and the control API, never /mcp.
//
// The page is our own, so the headers a browser adds to tell sites apart
// (Origin, Referer, Sec-Fetch-*) are dropped: the gate would rightly
// refuse the window's scheme as a foreign origin.
//
// Two adaptations for Wails' asset server: its response writer sends
// every Write straight to WebKit but has no Flush, so Flush exists here and
// the event stream streams; and its requests carry a context that never
// ends, so here they end with appCtx and long-polls finish with the window.
func Proxy(appCtx context.Context, sock string, logger *slog.Logger) http.Handler {
	tr := &http.Transport{
		DialContext:         client.SocketDialer(sock),
		MaxIdleConnsPerHost: 16,
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme, pr.Out.URL.Host, pr.Out.Host = "http", "gatehouse", "gatehouse"
			for _, h := range []string{"Origin", "Referer", "Cookie", "Sec-Fetch-Site", "Sec-Fetch-Mode", "Sec-Fetch-Dest", "Sec-Fetch-User"} {
				pr.Out.Header.Del(h)
			}
		},
		Transport:     tr,
		FlushInterval: -1, // the event stream: every write goes out at once
		// A stream cut short when the window closes is no news.
		ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelDebug),
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if r.Context().Err() == nil {
				logger.Warn("window: the daemon did not answer", "path", r.URL.Path, "err", err)
			}
			httpgate.Error(w, http.StatusBadGateway, "the Gatehouse daemon does not answer; it may be stopping")
		},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		stop := context.AfterFunc(appCtx, cancel)
		defer stop()
		rp.ServeHTTP(flushWriter{w}, r.WithContext(ctx))
	})
}

type flushWriter struct{ http.ResponseWriter }

func (f flushWriter) Flush() {
	if fl, ok := f.ResponseWriter.(http.Flusher); ok {
		fl.Flush()
	}
}
