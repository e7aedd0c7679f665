package bwrap

import (
	"fmt"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// workspaceMounts fills in what the helper mounts over p's workspaces
// when the call arrives, computed now so a protected name or a secret
// the previous call made is covered in this one: the protected paths
// read-only and, in a run that writes the workspace itself (neither
// staged nor only reading), the missing ones uncreatable and their
// parent directories pinned; submodules' git dirs writable again, the
// secrets hidden behind empty files and their directories pinned.
// release gives back any placeholder (a protected name that went
// missing since the scan); call it once the run is over.
func workspaceMounts(p *sandbox.Prepared, req *initproc.Request) (release func(), err error) {
	var names []string
	for _, w := range p.Workspaces {
		ws, err := protect.Scan(w, p.Expose)
		if err != nil {
			return nil, fmt.Errorf("cannot tell what to protect in %s, so nothing runs: %w", w, err)
		}
		names = append(names, ws.Protected.Existing...)
		pins := ws.HiddenParents()
		switch {
		case p.Stage != nil:
			// A staged run writes only its upper layer, and a protected
			// name it creates there is never applied (the caller keeps it
			// out). bwrap hid these below the overlay.
			files, dirs := p.HiddenIn(w)
			req.HideFiles, req.HideDirs = append(req.HideFiles, files...), append(req.HideDirs, dirs...)
		case p.Spec.ReadOnlyWorkspaces:
			// Nothing can be created in a read-only workspace, and no
			// submodule's git dir is made writable again.
			req.ReadOnly = append(req.ReadOnly, w)
		default:
			// The run's first process refuses to create the missing ones
			// (initproc's creation guard), and their parents stay where
			// git and the rest look for them.
			req.Uncreatable = append(req.Uncreatable, ws.Protected.Missing...)
			pins = ws.PinnedParents()
		}
		if !p.Spec.ReadOnlyWorkspaces {
			req.Writable = append(req.Writable, ws.Protected.Writable...)
		}
		req.Pin = append(req.Pin, pins...)
		req.HideFiles = append(req.HideFiles, ws.Secrets.Files...)
		protect.SettleIndexSoon(w, ws.Secrets.Files)
		req.HideDirs = append(req.HideDirs, ws.Secrets.Dirs...)
	}
	held, existing := protect.Shared.Cover(names)
	req.Protect = append(existing, held...)
	return func() { protect.Shared.Release(held) }, nil
}
