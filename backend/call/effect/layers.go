package effect

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Layers reads one workspace as it was before a run and as it is after
// it, whichever way the run went. A staged run leaves the workspace as it
// was (before) and holds its side in the upper layer; a checked run (one
// that could not be staged) has changed the workspace already (after), and
// what was there before lives only in the checkpoint taken first. Git's
// own files are judged by comparing the two sides, so every backend gets
// the same judgement.
type Layers struct {
	ws    string
	upper string // a staged run's upper layer; "" for a checked run
	// prior reads a checked run's files as they were (its checkpoint
	// before); nil for a staged run, or a checked run with no store.
	prior Prior
	// gitDir, when set, is where the set's .git/ paths lie: a checked
	// run's git dir outside its workspace (see FromCheckpoints).
	gitDir  storedAt
	deleted map[string]bool
	changed map[string]bool
}

// Prior reads a workspace file (rel, slash-separated) as it was before a
// checked run: from the checkpoint taken before it.
type Prior func(rel string) ([]byte, error)

// errNoBefore: a checked run with no checkpoint to read its before from.
var errNoBefore = errors.New("what the workspace held before this run cannot be read")

// NewLayers describes workspace ws with run set s; upper is the staged
// layer ("" for a checked run) and prior reads a checked run's before.
func NewLayers(ws, upper string, s Set, prior Prior) Layers {
	l := Layers{ws: ws, upper: upper, prior: prior, deleted: map[string]bool{}, changed: map[string]bool{}}
	for _, c := range s.Changes {
		p := filepath.ToSlash(c.Path)
		l.changed[p] = true
		switch c.Op {
		case Delete:
			l.deleted[p] = true
		case Create:
			delete(l.deleted, p) // a type change lists a delete, then a create
		}
	}
	return l
}

// Knows reports whether both sides can be read.
func (l Layers) Knows() bool { return l.upper != "" || l.prior != nil }

// Staged reports whether the workspace still holds the before side.
func (l Layers) Staged() bool { return l.upper != "" }

// Before reads rel as it was before the run.
func (l Layers) Before(rel string) ([]byte, error) {
	switch {
	case l.upper != "":
		return readGitFile(filepath.Join(l.ws, filepath.FromSlash(rel)))
	case l.prior != nil:
		return l.prior(rel)
	}
	return nil, errNoBefore
}

// AfterPath is where rel lives after the run ("" when it is gone).
func (l Layers) AfterPath(rel string) string {
	if l.deleted[rel] {
		return ""
	}
	if l.upper != "" && l.changed[rel] {
		p := filepath.Join(l.upper, filepath.FromSlash(rel))
		if _, err := os.Lstat(p); err == nil {
			return p
		}
	}
	p := l.onDisk(rel)
	if _, err := os.Lstat(p); err != nil {
		return ""
	}
	return p
}

// onDisk is where rel lies in the workspace (or its git dir outside it).
func (l Layers) onDisk(rel string) string {
	if l.gitDir.prefix != "" {
		if p := l.gitDir.real(rel); p != "" {
			return p
		}
	}
	return filepath.Join(l.ws, filepath.FromSlash(rel))
}

// After reads rel as it is after the run.
func (l Layers) After(rel string) ([]byte, error) {
	p := l.AfterPath(rel)
	if p == "" {
		return nil, fmt.Errorf("%s after the run: %w", rel, fs.ErrNotExist)
	}
	return readGitFile(p)
}

// AfterNames are the names in directory rel after the run.
func (l Layers) AfterNames(rel string) []string {
	seen := map[string]bool{}
	var out []string
	dirs := []string{l.onDisk(rel)}
	if l.upper != "" {
		dirs = append(dirs, filepath.Join(l.upper, filepath.FromSlash(rel)))
	}
	for _, dir := range dirs {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if n := e.Name(); !seen[n] && l.AfterPath(rel+"/"+n) != "" {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}

// Deleted reports whether the run deleted rel (and did not make it again).
func (l Layers) Deleted(rel string) bool { return l.deleted[rel] }

// maxGitFile bounds what is read of one of git's files (an index of a
// very large repository runs to tens of MiB; a pack index to hundreds).
const maxGitFile = 512 << 20

func readGitFile(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxGitFile))
}
