package landlock

import (
	"fmt"
	"path/filepath"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// workspaceSpecials marks what carving must treat apart in p's
// workspaces (see addSpecials). Hidden paths already in special keep
// winning.
func workspaceSpecials(p *sandbox.Prepared, special map[string]access) error {
	for _, w := range p.Workspaces {
		ws, err := protect.Scan(w, p.Expose)
		if err != nil {
			return fmt.Errorf("cannot tell what to protect in %s, so nothing runs: %w", w, err)
		}
		// Git must find a tracked secret clean by its stat: it cannot
		// read it to compare.
		protect.SettleIndexSoon(w, ws.Secrets.Files)
		addSpecials(ws, special)
	}
	return nil
}

// addSpecials marks ws's special paths: secrets get no access at all
// (their directories are carved down to them, so a command can neither
// open nor move them), protected paths are read-only, and missing
// protected names are read-only too, which carves their parent so
// nothing can be created there. Submodules' git dirs stay writable
// inside the read-only .git/modules. Hidden paths already in special
// keep winning.
func addSpecials(ws protect.Workspace, special map[string]access) {
	set := func(path string, a access) {
		if _, hidden := special[path]; !hidden {
			special[path] = a
		}
	}
	for _, h := range ws.Hidden() {
		special[h] = denied
	}
	for _, pr := range ws.Protected.Existing {
		markReadOnly(pr, special)
	}
	for _, m := range ws.Protected.Missing {
		set(m, readOnly)
	}
	for _, d := range ws.Protected.Writable {
		set(d, readWrite)
	}
}

// markReadOnly marks protected path p read-only, and a protected link's
// target (.claude -> cfg/claude) too: a write through the link lands
// there, and a rule on the link alone would not cover it under a
// writable cfg (carving gives a link no rule at all). The link itself
// sits in a carved directory. A hidden path keeps winning.
func markReadOnly(p string, special map[string]access) {
	for _, q := range []string{p, linkTarget(p)} {
		if _, hidden := special[q]; q != "" && !hidden {
			special[q] = readOnly
		}
	}
}

// linkTarget is where the link p leads, "" when p is no link (or leads
// nowhere).
func linkTarget(p string) string {
	if t, err := filepath.EvalSymlinks(p); err == nil && t != p {
		return t
	}
	return ""
}
