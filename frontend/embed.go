// Package frontend embeds the built web UI.
package frontend

import (
	"embed"
	"io/fs"
)

// dist is the Vite build output. On a clean clone it holds only .gitkeep,
// which keeps `go build` working before npm has run.
//
//go:embed all:dist
var dist embed.FS

// Dist returns the built UI (index.html at its root).
func Dist() fs.FS {
	sub, _ := fs.Sub(dist, "dist")
	return sub
}
