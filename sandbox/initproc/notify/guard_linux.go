package notify

import (
	"fmt"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// createGuard knows the entries a run may not create: each is a name in
// a directory, and the directory is known by device and inode rather
// than by path, so reaching it another way (a bind mount in a namespace
// the run made, /proc/PID/cwd, a symbolic link) names the same entry.
// The directories are pinned (initproc.Request.Pin) or are the
// workspace root, so none of them is replaced by a new one during the
// run; the guard holds each open, so its inode number cannot pass to
// another directory.
type createGuard struct {
	refused map[entryKey]bool
	held    []int
}

type entryKey struct {
	dev, ino uint64
	name     string
}

// newCreateGuard opens the parent of each path. A parent that is gone
// holds nothing to create: its entry is left out.
func newCreateGuard(paths []string) (*createGuard, error) {
	g := &createGuard{refused: map[entryKey]bool{}}
	dirs := map[string]unix.Stat_t{}
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			g.close()
			return nil, fmt.Errorf("protected path %q is not absolute", p)
		}
		dir, name := filepath.Dir(p), filepath.Base(p)
		st, ok := dirs[dir]
		if !ok {
			fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if err != nil {
				continue
			}
			if err := unix.Fstat(fd, &st); err != nil {
				unix.Close(fd)
				continue
			}
			g.held = append(g.held, fd)
			dirs[dir] = st
		}
		g.refused[entryKey{st.Dev, st.Ino, name}] = true
	}
	return g, nil
}

// refuses reports whether name may not be created in the directory open
// at dir. A name with a trailing slash is the same name.
func (g *createGuard) refuses(dir int, name string) (bool, error) {
	var st unix.Stat_t
	if err := unix.Fstat(dir, &st); err != nil {
		return true, err
	}
	for len(name) > 1 && name[len(name)-1] == '/' {
		name = name[:len(name)-1]
	}
	return g.refused[entryKey{st.Dev, st.Ino, name}], nil
}

func (g *createGuard) close() {
	for _, fd := range g.held {
		unix.Close(fd)
	}
	g.held = nil
}
