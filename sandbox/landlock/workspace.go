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
		set(pr, readOnly)
		// A protected link's target (.claude -> cfg/claude) is
		// read-only too: a write through the link lands there, and a
		// rule on the link alone would not cover it under a writable
		// cfg. The link itself sits in a carved directory.
		if t, err := filepath.EvalSymlinks(pr); err == nil && t != pr {
			set(t, readOnly)
		}
	}
	for _, m := range ws.Protected.Missing {
		set(m, readOnly)
	}
	for _, d := range ws.Protected.Writable {
		set(d, readWrite)
	}
}
