package seatbelt

import (
	"path/filepath"

	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// staticProtected are the protected names of every workspace, named in
// the profile whether they exist or not (path rules cost nothing): the
// protect package's names, every hook runner's, and what git runs from
// the workspace's own git dir. What only the
// repository says (core.hooksPath, includes, submodules) comes from
// protect.Scan.
var staticProtected = append(append([]string{".git/hooks", ".git/config", ".git/commondir", ".git/config.worktree"},
	protect.Names...), protect.HookRunnerNames...)

// writeProtected writes the denials for the workspaces' protected paths
// and secrets.
func writeProtected(w func(string, ...any), roots []string, ws []protect.Workspace) {
	w("(deny file-write*")
	for i, root := range roots {
		seen := map[string]bool{}
		name := func(pn string) {
			if seen[pn] {
				return
			}
			seen[pn] = true
			w("  (subpath %s)", quote(pn))
			// Seatbelt matches the path a write resolves to, so a
			// protected link's target is named too.
			if t, err := filepath.EvalSymlinks(pn); err == nil && t != pn {
				w("  (subpath %s)", quote(t))
			}
		}
		for _, n := range staticProtected {
			name(filepath.Join(root, filepath.FromSlash(n)))
		}
		if i < len(ws) {
			for _, pn := range ws[i].Protected.All() {
				name(pn)
			}
		}
		q := regexQuote(root)
		w("  (regex %s)", quote("^"+q+"/\\.gatehouse"))
		// Every submodule's git dir, and linked worktrees' admin files.
		w("  (regex %s)", quote("^"+q+"/\\.git/modules/(.+/)?(hooks|config|commondir|config\\.worktree)(/|$)"))
		w("  (regex %s)", quote("^"+q+"/\\.git/worktrees/[^/]+/(commondir|gitdir|config\\.worktree)$"))
	}
	w(")")
	// No new git dir can be planted in .git/modules for a later
	// `git submodule update` to adopt.
	w("(deny file-write-create")
	for _, root := range roots {
		w("  (regex %s)", quote("^"+regexQuote(root)+"/\\.git/modules/[^/]+$"))
	}
	w(")")
	var hidden []string
	for _, x := range ws {
		hidden = append(hidden, x.Hidden()...)
	}
	subpaths(w, "deny file-read* file-write*", hidden)
}
