package desktop

import (
	"context"
	"errors"
	"net/http"
)

// ErrAlreadyRunning means another Gatehouse window on the same data dir was
// asked to show itself, so this launch has nothing more to do.
var ErrAlreadyRunning = errors.New("Gatehouse is already running on this data directory; its window was brought to the front")

// windowHandler adapts the daemon's in-process handler to Wails' asset
// server:
//
//   - Wails' response writer sends every Write straight into the pipe
//     WebKit reads, with nothing buffered in between, but it offers no
//     Flush, so the SSE handler would stop at its first flush. Here Flush
//     exists (and passes on to the writer if it ever gains one): the event
//     stream then streams in the window too.
//   - Wails' requests carry a context that never ends; here it ends when the
//     app stops, so long-polls and streams finish with the daemon.
func windowHandler(appCtx context.Context, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		stop := context.AfterFunc(appCtx, cancel)
		defer stop()
		h.ServeHTTP(flushWriter{w}, r.WithContext(ctx))
	})
}

type flushWriter struct{ http.ResponseWriter }

func (f flushWriter) Flush() {
	if fl, ok := f.ResponseWriter.(http.Flusher); ok {
		fl.Flush()
	}
}
