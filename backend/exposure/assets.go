package exposure

import (
	"embed"
	"net/http"
)

// The approvals page: one HTML file, its script and its style, nothing
// fetched from elsewhere (the CSP allows only 'self').
//
//go:embed page
var pageFS embed.FS

func serveAsset(w http.ResponseWriter, name, contentType string) {
	b, err := pageFS.ReadFile("page/" + name)
	if err != nil {
		fail(w, http.StatusNotFound, "no such file")
		return
	}
	w.Header().Set("Content-Type", contentType)
	_, _ = w.Write(b)
}

// asset serves a page file: they hold no secret, so they need no cookie.
func asset(name, contentType string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) { serveAsset(w, name, contentType) }
}
