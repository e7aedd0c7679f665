package call

import (
	"path/filepath"
	"strings"

	"github.com/gatehouse-dev/gatehouse/backend/call/effect"
	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// keepOut takes out of staged change sets what the host runs or reads as
// configuration (the protected paths: .envrc, .vscode, git's hooks and
// config, …). A staged run may create them in its own layer, since it
// sees the workspace without placeholders, but they never land; kept
// lists them, relative to their workspace. An error means the protected
// paths could not be told, and nothing should land.
func keepOut(cs changeSets) (out changeSets, kept []string, err error) {
	out = cs
	out.sets = make([]effect.Set, len(cs.sets))
	multi := len(cs.workspaces) > 1
	for i, s := range cs.sets {
		if len(s.Changes) == 0 {
			out.sets[i] = s // most calls: nothing to look up
			continue
		}
		ws := cs.workspaces[i]
		set, err := protect.For(ws)
		if err != nil {
			return cs, nil, err
		}
		n := effect.Set{Bytes: s.Bytes}
		for _, c := range s.Changes {
			if c.Op != effect.Delete && guarded(filepath.Join(ws, c.Path), set) {
				kept = append(kept, cardPath(ws, c.Path, multi))
				continue
			}
			n.Changes = append(n.Changes, c)
		}
		out.sets[i] = n
	}
	return out, kept, nil
}

// guarded: p is a protected path or lies under one, and not in a
// directory left writable inside it (a submodule's git dir).
func guarded(p string, set protect.Set) bool {
	for _, w := range set.Writable {
		if under(p, w) {
			return false
		}
	}
	for _, g := range set.All() {
		if under(p, g) {
			return true
		}
	}
	return false
}

func under(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}
