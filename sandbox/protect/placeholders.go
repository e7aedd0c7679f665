package protect

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sys/unix"
)

// Placeholders are stand-ins made on the host at missing protected
// paths, so a sandbox has something to mount over and keep the name
// uncreatable (a mount needs a directory entry). They are shared between
// concurrent runs and removed when the last run holding them releases
// them.
//
// There are two kinds. bwrap pins a dangling symbolic link to
// LinkTarget with a mount of the link itself, which reads as absent
// inside the sandbox: stat, cat, test -e and git see nothing there,
// while creating, linking or renaming over it fails; only a listing
// shows the name (no mount can hide a name from its directory's
// listing). bwrap needs one only for a protected path that went missing
// between a run's scan and its start: the run's creation guard keeps
// the missing names it was told of uncreatable without any. The
// container cannot pin a link (its runtime follows one), so it mounts
// over an empty directory, or over a file where git reads a file: a
// commondir holding "." names the same repository.

// LinkTarget is where a placeholder link points: procfs has no such
// entry, and nothing can be created there.
const LinkTarget = "/proc/.gatehouse-protected/absent"

type kind int

const (
	linkKind kind = iota
	dirKind
	fileKind
)

type hold struct {
	refs int
	kind kind
}

// Placeholders is a registry of the placeholders in use.
type Placeholders struct {
	mu    sync.Mutex
	holds map[string]*hold
}

// Shared is the process-wide placeholder registry.
var Shared = &Placeholders{}

// Cover decides, in one step, how each protected path is kept: held are
// placeholders (new, or another run's) to pin or cover, existing are the
// user's own files and directories. A path whose parent does not exist
// is in neither: there is nothing to cover. Pass held to Release after
// the run. Placeholders are links, except a git dir's commondir: git
// takes any entry there (lstat) as a file to read, so it gets a file
// naming the git dir it sits in.
func (r *Placeholders) Cover(paths []string) (held, existing []string) {
	return r.cover(paths, func(p string) kind {
		if filepath.Base(p) == "commondir" {
			return fileKind
		}
		return linkKind
	})
}

// Reserve makes placeholders a container can mount over for the paths
// that do not exist: empty directories, or files where git reads a file
// (config, commondir, config.worktree, a worktree's gitdir). Paths that
// exist are left to the caller.
func (r *Placeholders) Reserve(paths []string) []string {
	held, _ := r.cover(paths, containerKind)
	return held
}

func containerKind(p string) kind {
	switch filepath.Base(p) {
	case "config", "commondir", "config.worktree", "gitdir":
		return fileKind
	}
	return dirKind
}

// fileContent is what a file placeholder holds: for a commondir, the git
// dir it sits in; empty otherwise.
func fileContent(p string) []byte {
	if filepath.Base(p) == "commondir" {
		return []byte(".\n")
	}
	return nil
}

func (r *Placeholders) cover(paths []string, kindOf func(string) kind) (held, existing []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.holds == nil {
		r.holds = map[string]*hold{}
	}
	for _, p := range paths {
		if h := r.holds[p]; h != nil {
			h.refs++
			held = append(held, p)
			continue
		}
		h := &hold{refs: 1, kind: kindOf(p)}
		var err error
		switch h.kind {
		case linkKind:
			err = unix.Symlink(LinkTarget, p)
		case dirKind:
			err = unix.Mkdir(p, 0o555)
		case fileKind:
			err = makeFile(p, fileContent(p))
		}
		switch {
		case err == nil:
			r.holds[p] = h
			held = append(held, p)
		case errors.Is(err, fs.ErrExist):
			existing = append(existing, p)
		}
	}
	return held, existing
}

func makeFile(p string, content []byte) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|unix.O_NOFOLLOW, 0o444)
	if err != nil {
		return err
	}
	_, err = f.Write(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(p)
	}
	return err
}

// Release drops one hold on each path and removes placeholders nobody
// holds, if they are still what was made: nothing a person put there is
// lost.
func (r *Placeholders) Release(paths []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range paths {
		h := r.holds[p]
		if h == nil {
			continue
		}
		if h.refs--; h.refs > 0 {
			continue
		}
		delete(r.holds, p)
		switch h.kind {
		case linkKind:
			if pristineLink(p) {
				_ = unix.Unlink(p)
			}
		case dirKind:
			_ = unix.Rmdir(p) // only ever removes an empty directory
		case fileKind:
			if b, err := readSmall(p); err == nil && bytes.Equal(b, fileContent(p)) {
				_ = unix.Unlink(p)
			}
		}
	}
}

// pristineLink reports whether p is still a placeholder link.
func pristineLink(p string) bool {
	t, err := os.Readlink(p)
	return err == nil && t == LinkTarget
}

// IsPlaceholder reports whether p looks like a placeholder of either
// kind, as the doctor battery checks that nothing else was created:
// a link to LinkTarget, an empty directory of mode 0555, or a read-only
// file holding what a placeholder file holds.
func IsPlaceholder(p string) bool {
	if pristineLink(p) {
		return true
	}
	st, err := os.Lstat(p)
	switch {
	case err != nil:
		return false
	case st.IsDir():
		ents, err := os.ReadDir(p)
		return err == nil && len(ents) == 0 && st.Mode().Perm() == 0o555
	case st.Mode().IsRegular():
		b, err := readSmall(p)
		return err == nil && st.Mode().Perm() == 0o444 && bytes.Equal(b, fileContent(p))
	}
	return false
}
