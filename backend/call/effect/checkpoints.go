package effect

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gatehouse-dev/gatehouse/backend/snapshot"
)

// FromCheckpoints turns the difference of two checkpoints (a checked run,
// which could not be staged) into change sets, one per workspace, so the
// same effect rules judge it. gitDirs are linked worktrees' common git
// dirs, checkpointed beside the workspaces because commands write them
// in place (sandbox.LinkedGitDirs). Each gets a set of its own whose paths
// lie under .git/, so git's rules judge its refs, objects and history as
// they judge a workspace's own repository: one named .git stands as the
// .git of the main worktree holding it, one named otherwise (a bare
// repository's) as the .git of a repository at its own place.
func FromCheckpoints(workspaces, gitDirs []string, changes []snapshot.Change) ChangeSets {
	n := len(workspaces) + len(gitDirs)
	cs := ChangeSets{Sets: make([]Set, n), Uppers: make([]string, n), stored: make([]storedAt, n)}
	index := map[string]int{}
	for i, w := range workspaces {
		index[w] = i
		cs.Workspaces = append(cs.Workspaces, w)
		cs.stored[i] = storedAt{root: w}
	}
	for j, g := range gitDirs {
		i := len(workspaces) + j
		index[g] = i
		ws := g
		if filepath.Base(g) == ".git" {
			ws = filepath.Dir(g)
		}
		cs.Workspaces = append(cs.Workspaces, ws)
		cs.stored[i] = storedAt{root: g, prefix: ".git/"}
	}
	for _, ch := range changes {
		i, ok := index[ch.Root]
		if !ok {
			continue
		}
		s := &cs.Sets[i]
		path := cs.stored[i].prefix + ch.Path
		add := func(op Op, k snapshot.Kind, perm uint32, size int64) {
			s.Changes = append(s.Changes, Change{Path: path, Op: op, Kind: snapshotKind(k), Mode: fs.FileMode(perm), Size: size})
		}
		switch ch.Kind {
		case snapshot.Added:
			add(Create, ch.NewKind, ch.NewPerm, ch.NewSize)
		case snapshot.Deleted:
			add(Delete, ch.OldKind, ch.OldPerm, ch.OldSize)
		case snapshot.TypeChanged:
			add(Delete, ch.OldKind, ch.OldPerm, ch.OldSize)
			add(Create, ch.NewKind, ch.NewPerm, ch.NewSize)
		default:
			add(Modify, ch.NewKind, ch.NewPerm, ch.NewSize)
			last := &s.Changes[len(s.Changes)-1]
			last.OldMode = fs.FileMode(ch.OldPerm)
			last.ModeOnly = ch.Kind == snapshot.ModeChanged
			last.Emptied = ch.NewSize == 0 && ch.OldSize > 0
		}
		if ch.Kind != snapshot.Deleted && ch.NewKind == snapshot.KindSymlink {
			// The run is over and the link is in the workspace.
			s.Changes[len(s.Changes)-1].Target, _ = os.Readlink(filepath.Join(ch.Root, filepath.FromSlash(ch.Path)))
		}
	}
	return cs
}

// storedAt is where a set's changes were checkpointed: the root, and the
// prefix its paths carry in the set (".git/" for a common git dir).
type storedAt struct{ root, prefix string }

// real is where rel of the set lies on disk ("" when outside it).
func (at storedAt) real(rel string) string {
	rel = filepath.ToSlash(rel)
	if at.prefix != "" && rel+"/" == at.prefix {
		return at.root
	}
	r, ok := strings.CutPrefix(rel, at.prefix)
	if !ok {
		return ""
	}
	return filepath.Join(at.root, filepath.FromSlash(r))
}

// bare: a git dir standing as the .git of a repository at its own place
// (a bare repository's), whose paths in the set name nothing on disk.
func (at storedAt) bare(ws string) bool { return at.prefix != "" && at.root == ws }

// gitDirAt is where set i's changes lie on disk, when they were
// checkpointed in a git dir outside its workspace.
func (cs ChangeSets) gitDirAt(i int) (storedAt, bool) {
	if i >= len(cs.stored) || cs.stored[i].prefix == "" {
		return storedAt{}, false
	}
	return cs.stored[i], true
}

// ReadPriors sets each set's Prior to read from the checkpoint before
// the run, with read(root, rel) in the checkpoint's own terms.
func (cs *ChangeSets) ReadPriors(read func(root, rel string) ([]byte, error)) {
	cs.Priors = make([]Prior, len(cs.Sets))
	for i := range cs.Sets {
		at := storedAt{root: cs.Workspaces[i]}
		if i < len(cs.stored) {
			at = cs.stored[i]
		}
		cs.Priors[i] = func(rel string) ([]byte, error) {
			r, ok := strings.CutPrefix(rel, at.prefix)
			if !ok {
				return nil, fs.ErrNotExist // outside the git dir this set stands for
			}
			return read(at.root, r)
		}
	}
}

func snapshotKind(k snapshot.Kind) Kind {
	switch k {
	case snapshot.KindDir:
		return Dir
	case snapshot.KindSymlink:
		return Symlink
	case snapshot.KindFile:
		return File
	}
	return Special
}
