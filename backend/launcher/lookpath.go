package launcher

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrNotFound: no program of that name on PATH but launchers.
var ErrNotFound = errors.New("not found on PATH")

// LookPath is exec.LookPath over the PATH value path, passing over every
// launcher, so that a launcher never starts itself (or another launcher)
// in place of the real agent. A name with a slash is taken as it is.
// Relative PATH entries (an empty one is the current directory) are
// passed over too, as exec.LookPath refuses them.
func LookPath(name, path string) (string, error) {
	if strings.Contains(name, "/") {
		return exec.LookPath(name)
	}
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		p, err := exec.LookPath(filepath.Join(dir, name))
		if err == nil && !Is(p) {
			return p, nil
		}
	}
	return "", &exec.Error{Name: name, Err: ErrNotFound}
}

// First is the directory of the first program named name on path,
// launchers included: where typing name leads. "" when there is none.
func First(name, path string) string {
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		if p, err := exec.LookPath(filepath.Join(dir, name)); err == nil {
			return filepath.Dir(p)
		}
	}
	return ""
}
