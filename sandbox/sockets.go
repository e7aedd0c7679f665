package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// A unix socket shown read-only still connects: a read-only mount keeps
// the socket's file from being changed, not a command from talking to the
// service behind it (a database as the person, the container engine as
// root). So no path is shown that is, or holds, one.

// Bounds of the search SocketIn makes below a directory.
const (
	socketDepth   = 4
	socketEntries = 20000
)

// errTooMany ends a search past socketEntries.
var errTooMany = errors.New("too many entries to look through")

// SocketIn returns the first unix socket that showing p would hand a
// command: p itself, or one below it (up to socketDepth levels); "" when
// there is none. ok is false when p holds more than socketEntries entries
// within that depth, which were not all looked at: the caller decides
// whether that is too many to show.
func SocketIn(p string) (sock string, ok bool) {
	st, err := os.Lstat(p)
	if err != nil {
		return "", true
	}
	if st.Mode()&fs.ModeSocket != 0 {
		return p, true
	}
	if !st.IsDir() {
		return "", true
	}
	seen := 0
	err = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: nothing of it is shown either
		}
		if seen++; seen > socketEntries {
			return errTooMany
		}
		if d.Type()&fs.ModeSocket != 0 {
			sock = q
			return filepath.SkipAll
		}
		if d.IsDir() && q != p && depth(p, q) >= socketDepth {
			return filepath.SkipDir
		}
		return nil
	})
	if errors.Is(err, errTooMany) {
		return sock, false
	}
	return sock, true
}

// depth is how many levels q lies below root.
func depth(root, q string) int {
	rel, err := filepath.Rel(root, q)
	if err != nil {
		return 0
	}
	n := 1
	for _, c := range rel {
		if c == filepath.Separator {
			n++
		}
	}
	return n
}
