package workspace

import (
	"path/filepath"
	"strings"
)

// InsideAny reports whether the clean absolute path p is one of roots or
// below one.
func InsideAny(p string, roots []string) bool {
	for _, root := range roots {
		if p == root || strings.HasPrefix(p, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
