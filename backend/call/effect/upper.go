package effect

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// An overlay's upper layer records a change in one of four ways: a file,
// link or directory that is new or copied up (changed); a whiteout (a
// character device 0:0, or a file carrying the whiteout xattr) for a
// deleted name; an opaque directory (xattr opaque=y), whose lower contents
// are hidden, for a directory that was removed and made again; and
// directories that merely hold changes below them. Unprivileged overlays
// (userxattr) use the user.overlay.* names, others trusted.overlay.*.

var (
	opaqueXattrs   = []string{"user.overlay.opaque", "trusted.overlay.opaque"}
	whiteoutXattrs = []string{"user.overlay.whiteout", "trusted.overlay.whiteout"}
)

// view is how an upper directory relates to the lower one at its path.
type view int

const (
	merged view = iota // the lower directory shows through; compare entry by entry
	opaque             // the lower directory is hidden: what upper lacks is deleted
	fresh              // there was no lower directory: everything is new
)

// Read returns the change set the upper layer holds over lower (the
// workspace). Only the upper layer is walked, plus the lower directories a
// deletion or an opaque directory covers.
func Read(upper, lower string) (Set, error) {
	var s Set
	err := readDir(&s, upper, lower, "", merged)
	s.sort()
	return s, err
}

func readDir(s *Set, upper, lower, rel string, v view) error {
	ents, err := os.ReadDir(filepath.Join(upper, rel))
	if err != nil {
		return fmt.Errorf("read the staged changes: %w", err)
	}
	inUpper := map[string]bool{}
	for _, e := range ents {
		name := e.Name()
		inUpper[name] = true
		p := filepath.Join(rel, name)
		up := filepath.Join(upper, p)
		ui, err := os.Lstat(up)
		if err != nil {
			return fmt.Errorf("read the staged changes: %w", err)
		}
		var li fs.FileInfo
		if v != fresh {
			li, _ = os.Lstat(filepath.Join(lower, p))
		}
		if err := readEntry(s, upper, lower, p, ui, li); err != nil {
			return err
		}
	}
	if v == opaque {
		// Everything of the hidden lower directory that upper does not
		// hold again is gone.
		lents, err := os.ReadDir(filepath.Join(lower, rel))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("read the workspace under %s: %w", rel, err)
		}
		for _, e := range lents {
			if !inUpper[e.Name()] {
				if err := deleteTree(s, lower, filepath.Join(rel, e.Name())); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// readEntry records one upper entry; li is the lower entry at the same
// path, nil when there is none (or it is hidden by a fresh directory).
func readEntry(s *Set, upper, lower, p string, ui, li fs.FileInfo) error {
	up := filepath.Join(upper, p)
	switch {
	case isWhiteout(up, ui):
		if li != nil {
			return deleteTree(s, lower, p)
		}
		return nil
	case ui.IsDir():
		v := fresh
		switch {
		case li == nil:
			s.Changes = append(s.Changes, Change{Path: p, Op: Create, Kind: Dir, Mode: ui.Mode()})
		case !li.IsDir():
			// A file or link became a directory.
			s.Changes = append(s.Changes, Change{Path: p, Op: Delete, Kind: kindOf(li), OldMode: li.Mode()})
			s.Changes = append(s.Changes, Change{Path: p, Op: Create, Kind: Dir, Mode: ui.Mode()})
		default:
			v = merged
			if hasXattr(up, opaqueXattrs, "y") {
				v = opaque
			}
			if ui.Mode() != li.Mode() {
				s.Changes = append(s.Changes, Change{Path: p, Op: Modify, Kind: Dir, Mode: ui.Mode(), OldMode: li.Mode(), ModeOnly: true})
			}
		}
		return readDir(s, upper, lower, p, v)
	}
	c := Change{Path: p, Kind: kindOf(ui), Mode: ui.Mode()}
	if c.Kind == File {
		c.Size = ui.Size()
		s.Bytes += ui.Size()
	}
	if c.Kind == Symlink {
		t, err := os.Readlink(up)
		if err != nil {
			return fmt.Errorf("read the staged link %s: %w", p, err)
		}
		c.Target = t
	}
	switch {
	case li == nil:
		c.Op = Create
	case li.IsDir():
		// A directory became a file or a link: the old tree goes first.
		if err := deleteTree(s, lower, p); err != nil {
			return err
		}
		c.Op = Create
	default:
		c.Op, c.OldMode = Modify, li.Mode()
		if c.Kind == File && kindOf(li) == File {
			c.Emptied = ui.Size() == 0 && li.Size() > 0
			same, err := sameContent(up, filepath.Join(lower, p), ui, li)
			if err != nil {
				return err
			}
			c.ModeOnly = same
		}
	}
	s.Changes = append(s.Changes, c)
	return nil
}

// deleteTree records the deletion of the lower path p and, for a
// directory, of everything in it.
func deleteTree(s *Set, lower, p string) error {
	li, err := os.Lstat(filepath.Join(lower, p))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the workspace at %s: %w", p, err)
	}
	if li.IsDir() {
		ents, err := os.ReadDir(filepath.Join(lower, p))
		if err != nil {
			return fmt.Errorf("read the workspace under %s: %w", p, err)
		}
		for _, e := range ents {
			if err := deleteTree(s, lower, filepath.Join(p, e.Name())); err != nil {
				return err
			}
		}
	}
	s.Changes = append(s.Changes, Change{Path: p, Op: Delete, Kind: kindOf(li), OldMode: li.Mode(), Size: sizeOf(li)})
	return nil
}

func sizeOf(fi fs.FileInfo) int64 {
	if fi.Mode().IsRegular() {
		return fi.Size()
	}
	return 0
}

func kindOf(fi fs.FileInfo) Kind {
	switch m := fi.Mode(); {
	case m.IsRegular():
		return File
	case m.IsDir():
		return Dir
	case m&fs.ModeSymlink != 0:
		return Symlink
	}
	return Special
}

// isWhiteout: a character device 0:0, or an "xwhiteout" file.
func isWhiteout(path string, fi fs.FileInfo) bool {
	if fi.Mode()&fs.ModeCharDevice != 0 {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Rdev == 0 {
			return true
		}
	}
	return fi.Mode().IsRegular() && fi.Size() == 0 && hasXattr(path, whiteoutXattrs, "")
}

// hasXattr reports whether path carries one of names (with value want,
// when want is not empty).
func hasXattr(path string, names []string, want string) bool {
	buf := make([]byte, 16)
	for _, n := range names {
		sz, err := unix.Lgetxattr(path, n, buf)
		if err != nil {
			continue
		}
		if want == "" || string(buf[:sz]) == want {
			return true
		}
	}
	return false
}

// sameContent compares a staged file with the workspace's. Not by mtime:
// a command can put the old mtime back on new content, and the card would
// then call a content change a mode change.
func sameContent(a, b string, ai, bi fs.FileInfo) (bool, error) {
	if ai.Size() != bi.Size() {
		return false, nil
	}
	fa, err := os.Open(a)
	if err != nil {
		return false, fmt.Errorf("read the staged file: %w", err)
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return false, nil
	}
	defer fb.Close()
	ba, bb := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		na, ea := io.ReadFull(fa, ba)
		nb, eb := io.ReadFull(fb, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false, nil
		}
		if ea != nil || eb != nil {
			return errors.Is(ea, io.EOF) || errors.Is(ea, io.ErrUnexpectedEOF), nil
		}
	}
}
