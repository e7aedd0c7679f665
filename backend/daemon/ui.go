package daemon

import (
	"io/fs"
	"net/http"
	"strings"
)

// uiCSP lets the UI load only its own files and talk only to this daemon.
const uiCSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// isUIPath reports the static UI routes: GETs outside the API and MCP.
// They need no token (the files hold no secrets); the UI then calls the API
// with the token from its login link.
func isUIPath(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	p := r.URL.Path
	return p != "/mcp" && !strings.HasPrefix(p, "/mcp/") && !strings.HasPrefix(p, "/api/")
}

func uiHandler(ui fs.FS) http.Handler {
	files := http.FileServerFS(ui)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !isUIPath(r) {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if r.URL.Path == "/" {
			if _, err := fs.Stat(ui, "index.html"); err != nil {
				w.Header().Set("Content-Type", "text/plain; charset=utf-8")
				w.WriteHeader(http.StatusNotFound)
				_, _ = w.Write([]byte("The Gatehouse web UI is not built into this binary; run `make build` and start it again.\n"))
				return
			}
		}
		w.Header().Set("Content-Security-Policy", uiCSP)
		if strings.HasPrefix(r.URL.Path, "/assets/") {
			// Vite names assets by content hash.
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		}
		files.ServeHTTP(w, r)
	})
}
