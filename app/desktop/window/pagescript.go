package window

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
)

// pageScriptPath serves pageReportJS to the page in the window. The window
// answers it itself; it never reaches the daemon.
const pageScriptPath = "/.gatehouse-window/page-report.js"

// pageScriptTag goes into the UI's index.html so the page report starts
// with the page: the window then learns the app shell is on screen at its
// first frame, not at the end of the load (Wails' DomReady), which comes a
// hundred milliseconds or more later. Deferred, it runs before the UI's
// own module script, so it sees the first render.
var pageScriptTag = []byte(`<script defer src="` + pageScriptPath + `"></script>`)

// withPageScript serves pageScriptPath and puts pageScriptTag into the
// index page next serves; everything else is next's.
func withPageScript(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == pageScriptPath:
			w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			_, _ = io.WriteString(w, pageReportJS)
		case r.URL.Path == "/" && r.Method == http.MethodGet:
			rec := &indexRecorder{header: http.Header{}, status: http.StatusOK}
			next.ServeHTTP(rec, r)
			body := rec.body.Bytes()
			if rec.status == http.StatusOK && rec.header.Get("Content-Encoding") == "" {
				body = withScriptTag(body)
			}
			for k, v := range rec.header {
				w.Header()[k] = v
			}
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			w.WriteHeader(rec.status)
			_, _ = w.Write(body)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// withScriptTag puts pageScriptTag before </head>; a page without one is
// left as it is (the report still starts at Wails' DomReady).
func withScriptTag(page []byte) []byte {
	i := bytes.Index(bytes.ToLower(page), []byte("</head>"))
	if i < 0 {
		return page
	}
	out := make([]byte, 0, len(page)+len(pageScriptTag))
	out = append(append(append(out, page[:i]...), pageScriptTag...), page[i:]...)
	return out
}

// indexRecorder holds the index page so the tag can go in.
type indexRecorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *indexRecorder) Header() http.Header         { return r.header }
func (r *indexRecorder) WriteHeader(status int)      { r.status = status }
func (r *indexRecorder) Write(p []byte) (int, error) { return r.body.Write(p) }
