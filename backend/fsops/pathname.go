package fsops

import (
	"strings"

	"github.com/gatehouse-dev/gatehouse/backend/workspace"
)

func joinRoots(roots *workspace.Roots) string { return strings.Join(roots.Paths(), ", ") }

// agentPath is how a result names a file: a path the agent can pass back
// unchanged. Relative to the first root where possible (short, and that is
// where relative paths resolve), absolute otherwise.
func agentPath(roots *workspace.Roots, p workspace.Path) string {
	if p.Inside {
		if ps := roots.Paths(); len(ps) > 0 && ps[0] == p.Root {
			return p.Rel
		}
	}
	return p.Abs
}
