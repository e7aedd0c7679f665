package protect

import (
	"path/filepath"
	"slices"
	"sort"
)

// Workspace is what a sandbox must keep of one workspace: the protected
// paths (read-only, or uncreatable) and the secrets it hides.
type Workspace struct {
	Root      string
	Protected Set
	Secrets   Found
}

// Scan computes both for workspace ws (absolute, resolved), leaving out
// the secrets e exposes.
func Scan(ws string, e Exposure) (Workspace, error) {
	w := Workspace{Root: ws}
	var err error
	if w.Protected, err = For(ws); err != nil {
		return w, err
	}
	if w.Secrets, err = Secrets.Find(ws, e); err != nil {
		return w, err
	}
	return w, nil
}

// Hidden is every path the sandbox hides: secret files, and directories
// that could not be searched.
func (w Workspace) Hidden() []string {
	return append(append([]string(nil), w.Secrets.Files...), w.Secrets.Dirs...)
}

// HiddenParents are the directories between the root and each hidden
// path. A sandbox whose mounts hide the secrets pins these too (a mount
// point cannot be renamed), so no command can move a secret's directory
// away and leave a decoy in its place for a sandbox being set up beside
// it.
func (w Workspace) HiddenParents() []string {
	return w.parentsOf(w.Hidden())
}

// ProtectedParents are the directories between the root and each
// protected path (.git for .git/config). A sandbox that writes the
// workspace itself pins these: a command that moved .git away and made
// a new one would leave the read-only config and hooks behind, and git
// would read the new ones. A parent that is a protected path itself, or
// a submodule's git dir bound writable, is a mount point already and
// is left out.
func (w Workspace) ProtectedParents() []string {
	mounted := map[string]bool{}
	for _, p := range append(append([]string(nil), w.Protected.Existing...), w.Protected.Writable...) {
		mounted[p] = true
	}
	var out []string
	for _, d := range w.parentsOf(w.Protected.All()) {
		if !mounted[d] {
			out = append(out, d)
		}
	}
	return out
}

// PinnedParents are HiddenParents and ProtectedParents, once each: what
// a sandbox that writes the workspace itself pins.
func (w Workspace) PinnedParents() []string {
	out := append(w.HiddenParents(), w.ProtectedParents()...)
	slices.Sort(out)
	return slices.Compact(out)
}

func (w Workspace) parentsOf(paths []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, h := range paths {
		for d := filepath.Dir(h); d != w.Root && within(d, w.Root); d = filepath.Dir(d) {
			if seen[d] {
				break
			}
			seen[d] = true
			out = append(out, d)
		}
	}
	sort.Strings(out)
	return out
}
