package effect

import (
	"path/filepath"
	"strings"

	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// KeepOut takes out of staged change sets what the host runs or reads as
// configuration (the protected paths: .envrc, .vscode, git's hooks and
// config, …). A staged run may create them in its own layer, since it
// sees the workspace without placeholders, but they never land; kept
// lists them, relative to their workspace. An error means the protected
// paths could not be told, and nothing should land.
func KeepOut(cs ChangeSets) (out ChangeSets, kept []string, err error) {
	out = cs
	out.Sets = make([]Set, len(cs.Sets))
	multi := len(cs.Workspaces) > 1
	for i, s := range cs.Sets {
		if len(s.Changes) == 0 {
			out.Sets[i] = s // most calls: nothing to look up
			continue
		}
		ws := cs.Workspaces[i]
		set, err := protect.For(ws)
		if err != nil {
			return cs, nil, err
		}
		n := Set{Bytes: s.Bytes}
		for _, c := range s.Changes {
			if c.Op != Delete && guarded(filepath.Join(ws, c.Path), set) {
				kept = append(kept, CardPath(ws, c.Path, multi))
				continue
			}
			n.Changes = append(n.Changes, c)
		}
		out.Sets[i] = n
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
