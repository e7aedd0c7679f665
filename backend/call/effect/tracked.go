package effect

import (
	"path/filepath"

	"github.com/gatehouse-dev/gatehouse/backend/policy"
)

// How much of the project a run destroys, measured against the project
// itself: the files git tracked before the run, from its index as it was.
// An absolute count misses a small repository (a 10-file project deleted
// whole never reaches policy.MassDeleteFiles), so the policy also judges
// the share of the tracked files lost.

// trackedLoss counts the tracked files the run deleted or emptied (gone
// and emptied, git's own removals already taken out), and how many files
// the index listed before. A deleted file whose content reappears under
// another name in the same run (same size: a mv) is moved, not lost.
// Below policy.TrackedLossFloor candidates nothing is read: the rule
// cannot fire, and a call that deletes one file costs no index read.
func trackedLoss(s Set, l Layers, gone []Change, emptied []string) (lost, of int) {
	if len(gone)+len(emptied) < policy.TrackedLossFloor || !l.HadRepo() {
		return 0, 0
	}
	b, err := l.Before(".git/index")
	if err != nil {
		return 0, 0
	}
	// The header's entry count bounds the tracked files: when the
	// candidates cannot be most of them, the index is not parsed (a
	// 100,000-file monorepo's is tens of MiB).
	if n, ok := indexCount(b); !ok || (len(gone)+len(emptied))*2 <= n {
		return 0, 0
	}
	paths, err := indexPaths(b)
	if err != nil {
		return 0, 0
	}
	idx := make(map[string]bool, len(paths))
	for _, p := range paths {
		idx[p] = true
	}
	created := map[int64]int{}
	for _, c := range s.Changes {
		if c.Op == Create && c.Kind == File && !inGit(c.Path) {
			created[c.Size]++
		}
	}
	for _, c := range gone {
		if !idx[filepath.ToSlash(c.Path)] {
			continue
		}
		if created[c.Size] > 0 {
			created[c.Size]--
			continue
		}
		lost++
	}
	for _, p := range emptied {
		if idx[filepath.ToSlash(p)] {
			lost++
		}
	}
	return lost, len(idx)
}
