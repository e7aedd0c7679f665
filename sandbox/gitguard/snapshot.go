package gitguard

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// maxSnapshotBytes bounds what one guarded path's snapshot keeps in
// memory. A hooks dir or a config is a few KiB; a tree beyond this is
// still watched and its change still stops the run, but it cannot be put
// back from here.
const maxSnapshotBytes = 8 << 20

// maxEntries bounds the entries walked under one guarded path.
const maxEntries = 10000

type kind byte

const (
	absent kind = iota
	file
	dir
	link
	other
	// kept is a directory left to the run (a submodule's git dir inside
	// the guarded .git/modules): only its name is guarded, and a restore
	// carries it over as it is.
	kept
)

// keepSet is the directories inside guarded paths that runs may change.
type keepSet map[string]bool

// node is one path's state: its fingerprint (every inode, size, mode and
// change time under it, which no write can leave as it was) and, to put
// it back, its content.
type node struct {
	kind kind
	mode fs.FileMode
	data []byte
	dest string // link target
	kids map[string]*node
	// fp covers the whole subtree.
	fp string
	// partial means the content was too large to keep: a change is still
	// seen, but it cannot be restored.
	partial bool
}

// fingerprint summarises the tree at p without reading file contents.
func fingerprint(p string, keep keepSet) string {
	h := sha256.New()
	buf := make([]byte, 0, 256)
	n := 0
	var walk func(p, rel string)
	walk = func(p, rel string) {
		n++
		buf = append(buf[:0], rel...)
		buf = append(buf, 0)
		if n > maxEntries {
			h.Write(append(buf, "more"...))
			return
		}
		if keep[p] {
			h.Write(append(buf, "kept"...))
			return
		}
		st, err := os.Lstat(p)
		if err != nil {
			h.Write(append(buf, "absent"...))
			return
		}
		h.Write(appendStatKey(buf, st))
		if !st.IsDir() {
			return
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			h.Write([]byte("\x00unreadable"))
			return
		}
		for _, e := range ents {
			walk(filepath.Join(p, e.Name()), rel+"/"+e.Name())
		}
	}
	walk(p, ".")
	return hex.EncodeToString(h.Sum(nil))
}

// snapshot reads the tree at p: its fingerprint first, so a change made
// while it is read shows as a mismatch later rather than slipping in.
func snapshot(p string, keep keepSet) *node {
	fp := fingerprint(p, keep)
	budget := maxSnapshotBytes
	entries := 0
	var read func(p string) *node
	read = func(p string) *node {
		entries++
		if keep[p] {
			return &node{kind: kept}
		}
		st, err := os.Lstat(p)
		if err != nil {
			return &node{kind: absent}
		}
		nd := &node{mode: st.Mode().Perm()}
		switch {
		case st.Mode()&fs.ModeSymlink != 0:
			nd.kind = link
			nd.dest, _ = os.Readlink(p)
		case st.IsDir():
			nd.kind = dir
			nd.kids = map[string]*node{}
			ents, err := os.ReadDir(p)
			if err != nil {
				nd.partial = true
			}
			for _, e := range ents {
				if entries > maxEntries {
					nd.partial = true
					break
				}
				k := read(filepath.Join(p, e.Name()))
				nd.partial = nd.partial || k.partial
				nd.kids[e.Name()] = k
			}
		case st.Mode().IsRegular():
			nd.kind = file
			if st.Size() > int64(budget) {
				nd.partial = true
				break
			}
			b, err := os.ReadFile(p)
			if err != nil {
				nd.partial = true
				break
			}
			budget -= len(b)
			nd.data = b
		default:
			nd.kind = other
			nd.partial = true
		}
		return nd
	}
	nd := read(p)
	nd.fp = fp
	return nd
}

// sameTree reports whether the tree at p holds what nd recorded: the
// same kinds, permissions, bytes and link targets, each file under one
// name alone; inodes and times may differ. git rewrites its config whole
// (a new inode) even to change nothing. A record too large to keep cannot
// tell, so it is never the same.
func sameTree(p string, nd *node, keep keepSet) bool {
	if nd.partial {
		return false
	}
	if keep[p] {
		return nd.kind == kept
	}
	st, err := os.Lstat(p)
	if err != nil {
		return nd.kind == absent
	}
	switch {
	case st.Mode()&fs.ModeSymlink != 0:
		dest, err := os.Readlink(p)
		return nd.kind == link && err == nil && dest == nd.dest
	case st.IsDir():
		if nd.kind != dir || st.Mode().Perm() != nd.mode {
			return false
		}
		ents, err := os.ReadDir(p)
		if err != nil || len(ents) != len(nd.kids) {
			return false
		}
		for _, e := range ents {
			k, ok := nd.kids[e.Name()]
			if !ok || !sameTree(filepath.Join(p, e.Name()), k, keep) {
				return false
			}
		}
		return true
	case st.Mode().IsRegular():
		// A second name would let a later write through it change the
		// file where no watch sees.
		if nd.kind != file || st.Mode().Perm() != nd.mode || st.Size() != int64(len(nd.data)) || links(st) != 1 {
			return false
		}
		b, err := os.ReadFile(p)
		return err == nil && bytes.Equal(b, nd.data)
	}
	return false
}

// restore puts the tree at p back as nd recorded it. Whatever is there
// now is moved aside, with execute bits cleared, to a name git never
// reads, and that name is returned ("" when nothing was there).
func restore(p string, nd *node, keep keepSet) (aside string, err error) {
	if nd.partial {
		return "", errors.New("too large or unreadable to keep a copy")
	}
	parent := filepath.Dir(p)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	var tmp string
	if nd.kind != absent {
		tmp = filepath.Join(parent, fmt.Sprintf(".gatehouse-restore-%s-%d", filepath.Base(p), time.Now().UnixNano()))
		if err := build(tmp, nd); err != nil {
			os.RemoveAll(tmp)
			return "", err
		}
		// What the run may change goes over as it is now, not from the
		// snapshot: its writes there were allowed.
		for k := range keep {
			if rel, ok := below(p, k); ok {
				if _, err := os.Lstat(k); err == nil {
					if err := os.Rename(k, filepath.Join(tmp, rel)); err != nil {
						os.RemoveAll(tmp)
						return "", err
					}
				}
			}
		}
	}
	if _, err := os.Lstat(p); err == nil {
		aside = filepath.Join(parent, fmt.Sprintf(".gatehouse-changed-%s-%d", filepath.Base(p), time.Now().UnixNano()))
		if err := os.Rename(p, aside); err != nil {
			os.RemoveAll(tmp)
			return "", err
		}
		disarm(aside)
	}
	if tmp != "" {
		if err := os.Rename(tmp, p); err != nil {
			return aside, err
		}
	}
	return aside, nil
}

// build writes nd's tree at p, which does not exist.
func build(p string, nd *node) error {
	switch nd.kind {
	case file:
		if err := os.WriteFile(p, nd.data, 0o600); err != nil {
			return err
		}
		return os.Chmod(p, nd.mode)
	case link:
		return os.Symlink(nd.dest, p)
	case dir:
		if err := os.Mkdir(p, 0o700); err != nil {
			return err
		}
		names := make([]string, 0, len(nd.kids))
		for n := range nd.kids {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if k := nd.kids[n].kind; k == absent || k == kept {
				continue
			}
			if err := build(filepath.Join(p, n), nd.kids[n]); err != nil {
				return err
			}
		}
		return os.Chmod(p, nd.mode)
	}
	return fmt.Errorf("cannot recreate %s", p)
}

// disarm clears the execute bits of every file set aside, so nothing
// the run wrote there can be run by mistake.
func disarm(p string) {
	_ = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		if st, err := os.Lstat(q); err == nil {
			_ = os.Chmod(q, st.Mode().Perm()&^0o111)
		}
		return nil
	})
}

// below is k's path relative to p when k lies under p.
func below(p, k string) (string, bool) {
	rel, err := filepath.Rel(p, k)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	return rel, true
}
