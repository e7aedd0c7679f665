package landlock

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// LockReason is why a workspace directory takes no new entry under
// Landlock.
type LockReason int

const (
	// LockSteering: a name that steers the next session is missing in
	// it, and must stay so.
	LockSteering LockReason = iota
	// LockSecret: a secret Gatehouse hides lies in it or below.
	LockSecret
	// LockProtected: an entry Gatehouse keeps read-only lies in it or
	// below.
	LockProtected
)

// Lock says why a directory takes no new entry. Landlock grants down a
// tree and cannot take a right away beneath, so carving gives a
// directory with a special path in it or below only the right to list
// it, and each of its entries its own rule (carve, carveRoot): what is
// there stays writable, nothing can be added.
type Lock struct {
	Reason LockReason
	// Path is what locks the directory: a missing name directly in it
	// when there is one, else the first special path below it; "" for a
	// root locked with nothing special in it.
	Path string
	// More counts the other missing names directly in it.
	More int
	rank int // how well Path says it (with)
}

// LockedDirs are the directories of ws that take no new entry under
// Landlock, each with why: its root always (read-only itself, its entries
// granted one by one), and every directory below it, or in its git dirs
// outside it (a linked worktree's, a submodule's), that would be writable
// but holds a special path. The same reading as the rules': addSpecials
// marks the paths, carving locks each writable directory above one.
func LockedDirs(ws protect.Workspace) map[string]Lock {
	special := map[string]access{}
	addSpecials(ws, special)
	why := map[string]LockReason{}
	for _, m := range ws.Protected.Missing {
		why[m] = LockSteering
	}
	for _, h := range ws.Hidden() {
		why[h] = LockSecret
	}
	locked := map[string]Lock{}
	lockUnder(ws.Root, special, why, locked)
	if _, ok := locked[ws.Root]; !ok {
		locked[ws.Root] = Lock{Reason: LockProtected}
	}
	// A linked worktree's or a submodule's git dirs lie outside it, shown
	// writable and carved the same way around their config and hooks.
	if l, err := protect.FindLinked(ws.Root); err == nil {
		lockUnder(l.CommonDir, special, why, locked)
		if l.GitDir != l.CommonDir {
			lockUnder(l.GitDir, special, why, locked)
		}
	}
	return locked
}

// lockUnder adds to locked each directory at or below root that carving
// keeps from taking new entries: a writable one with a special path in it
// or below.
func lockUnder(root string, special map[string]access, why map[string]LockReason, locked map[string]Lock) {
	var paths []string
	for p := range special {
		if strings.HasPrefix(p, root+"/") {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	for _, p := range paths {
		r, ok := why[p]
		if !ok {
			r = LockProtected
		}
		for d := filepath.Dir(p); ; d = filepath.Dir(d) {
			// Inside a read-only or hidden tree nothing is made anyway,
			// for that tree's own reason.
			if d == root || accessAt(d, root, special) == readWrite {
				locked[d] = locked[d].with(r, p, filepath.Dir(p) == d)
			}
			if d == root || !strings.HasPrefix(d, root+"/") {
				break
			}
		}
	}
}

// accessAt is what carving grants directory d below root: the nearest
// special path at or above it, or write.
func accessAt(d, root string, special map[string]access) access {
	for ; d != root && strings.HasPrefix(d, root+"/"); d = filepath.Dir(d) {
		if a, ok := special[d]; ok {
			return a
		}
	}
	return readWrite
}

// with is l having met special path p for reason r (direct: p is in the
// directory itself). A missing name in the directory says it best; then
// the first secret, a missing name further down, a protected entry.
func (l Lock) with(r LockReason, p string, direct bool) Lock {
	n := Lock{Reason: r, Path: p, rank: lockRank(r, direct)}
	switch {
	case l.Path == "" || n.rank < l.rank:
		return n
	case n.rank == 0 && l.rank == 0:
		l.More++
	}
	return l
}

func lockRank(r LockReason, direct bool) int {
	switch {
	case r == LockSteering && direct:
		return 0
	case r == LockSecret:
		return 1
	case r == LockSteering:
		return 2
	}
	return 3
}

// Why says why dir takes no new entry, as a clause with dir its subject:
// "DIR lacks .envrc, a name that …, and Landlock can keep those from being
// made only by letting no command add anything to DIR".
func (l Lock) Why(dir string) string {
	only := ", and Landlock can %s only by letting no command add anything to " + dir
	rel := l.Path
	if r, err := filepath.Rel(dir, l.Path); err == nil && filepath.IsLocal(r) {
		rel = r
	}
	switch {
	case l.Path == "":
		return dir + " is a project's root, which takes no new entry under Landlock"
	case l.Reason == LockSteering && l.More > 0:
		return dir + " lacks " + rel + " and other names that steer the next session and that no command may create" + strings.Replace(only, "%s", "keep those from being made", 1)
	case l.Reason == LockSteering:
		return dir + " lacks " + rel + ", a name that steers the next session and that no command may create" + strings.Replace(only, "%s", "keep those from being made", 1)
	case l.Reason == LockSecret:
		return dir + " holds " + rel + ", a secret Gatehouse hides" + strings.Replace(only, "%s", "hide it", 1)
	}
	return dir + " holds " + rel + ", which Gatehouse keeps read-only" + strings.Replace(only, "%s", "keep it so", 1)
}
