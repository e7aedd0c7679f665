package effect

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gatehouse-dev/gatehouse/backend/snapshot"
)

// FromCheckpoints turns the difference of two checkpoints (a checked run,
// which could not be staged) into change sets, one per workspace, so the
// same effect rules judge it.
func FromCheckpoints(workspaces []string, changes []snapshot.Change) ChangeSets {
	cs := ChangeSets{Workspaces: workspaces, Sets: make([]Set, len(workspaces)), Uppers: make([]string, len(workspaces))}
	index := map[string]int{}
	for i, w := range workspaces {
		index[w] = i
	}
	for _, ch := range changes {
		i, ok := index[ch.Root]
		if !ok {
			continue
		}
		s := &cs.Sets[i]
		add := func(op Op, k snapshot.Kind, perm uint32, size int64) {
			s.Changes = append(s.Changes, Change{Path: ch.Path, Op: op, Kind: snapshotKind(k), Mode: fs.FileMode(perm), Size: size})
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
