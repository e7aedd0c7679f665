package cli

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/gatehouse-dev/gatehouse/backend/plural"
	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/landlock"
	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// maxNamed is how many directories of one kind the notice names.
const maxNamed = 5

// landlockNotice is what the person is told before a confined run starts
// on Landlock: which directories of the workspaces (roots first) take no
// new entry, and why. Landlock grants or refuses making entries in a
// directory, not one name in it, so a directory that lacks a name that
// steers the next session, or holds a secret or a read-only entry, takes
// none; the agent there sees only "Permission denied" (a command through
// Gatehouse is told why; a whole agent's own tools are told by its
// hook). Empty when no directory is locked.
func landlockNotice(roots []string, locked map[string]landlock.Lock) string {
	if len(locked) == 0 {
		return ""
	}
	dirs := make([]string, 0, len(locked))
	for d := range locked {
		dirs = append(dirs, d)
	}
	slices.SortFunc(dirs, func(a, b string) int {
		ra, rb := slices.Index(roots, a), slices.Index(roots, b)
		switch {
		case ra >= 0 && rb >= 0:
			return ra - rb
		case ra >= 0:
			return -1
		case rb >= 0:
			return 1
		}
		return strings.Compare(a, b)
	})
	// Below the first (the project's root), a directory is named from it.
	groups := map[landlock.LockReason][]string{}
	for _, d := range dirs {
		name := d
		if rel, err := filepath.Rel(dirs[0], d); d != dirs[0] && err == nil && filepath.IsLocal(rel) {
			name = rel
		}
		r := locked[d].Reason
		if locked[d].Path == "" {
			r = landlock.LockSteering // a root with nothing special: kept as if it lacked one
		}
		groups[r] = append(groups[r], name)
	}
	why := []struct {
		reason     landlock.LockReason
		it, each   string
		onlyByThat string
	}{
		{landlock.LockSteering, "it lacks", "each lacks", " names that steer the next session, which Landlock can keep from being made only by refusing every new entry there"},
		{landlock.LockSecret, "it holds", "each holds", " a secret Gatehouse hides, which Landlock can hide only the same way"},
		{landlock.LockProtected, "it holds", "each holds", " an entry Gatehouse keeps read-only, which Landlock can keep so only the same way"},
	}
	var parts []string
	for _, w := range why {
		names := groups[w.reason]
		if len(names) == 0 {
			continue
		}
		where, verb := names[0], w.it
		if len(names) > 1 {
			verb = w.each
			if len(names) > maxNamed {
				// A monorepo may hold dozens: the first few say it.
				names = append(names[:maxNamed:maxNamed], plural.Count(len(names)-maxNamed, "other directory", "other directories"))
			}
			where = strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
		}
		parts = append(parts, where+" ("+verb+w.onlyByThat+")")
	}
	notice := "gatehouse: on Landlock nothing new can be made directly in " + strings.Join(parts, ", nor in ") +
		"; what is there already, and other subdirectories, work as usual"
	own := linkedGitDirs(roots)
	for _, d := range dirs {
		if holdsIndex(d, roots, own) {
			// What the person would not guess from the above: git makes
			// its lock files (index.lock, HEAD.lock) directly in .git.
			notice += ". So git run by the agent itself can read the repository but not stage, commit or switch branches; the shell commands it hands Gatehouse (through its hooks) run in sandboxes of their own, where git works"
			break
		}
	}
	return notice
}

// holdsIndex: d is the git dir of a repository in one of the roots, where
// git keeps its index and HEAD: a .git inside, or a submodule's or linked
// worktree's own git dir outside (one of own; not a common dir it shares).
func holdsIndex(d string, roots, own []string) bool {
	if slices.Contains(own, d) {
		return true
	}
	return filepath.Base(d) == ".git" && slices.ContainsFunc(roots, func(r string) bool { return sandbox.Within(d, r) })
}

// linkedGitDirs are the own git dirs of the roots that are linked
// worktrees or submodules' checkouts (protect.FindLinked).
func linkedGitDirs(roots []string) []string {
	var out []string
	for _, r := range roots {
		if l, err := protect.FindLinked(r); err == nil {
			out = append(out, l.GitDir)
		}
	}
	return out
}
