package landlock

import (
	"path/filepath"
	"slices"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
)

// Agent is what a whole confined agent (`gatehouse run` on Landlock, see
// sandbox/agentbox) is granted: the rules for its life, rather than for
// one call. Landlock grants, so whatever is listed nowhere (the real
// home, the data dir, other projects) is refused.
type Agent struct {
	// ReadOnly are files and directories shown read-only: toolchains,
	// the agent's install, the gatehouse programs, the home's allowlist.
	ReadOnly []string
	// ReadWrite are writable: the run's home and temporary directory,
	// the agent's state directory.
	ReadWrite  []string
	Workspaces []string
	// Protected are read-only although inside a writable tree: the
	// workspace's protected paths, the agent's settings in its state.
	Protected []string
	// Hidden get no access at all (the workspace's secrets, the data
	// dir), though a tree above them is granted.
	Hidden []string
	// Settings are the agent's own settings in its state directory: read-
	// only, and where one is a link (into a dotfiles directory, as GNU
	// stow makes them) what it leads to is shown read-only too, as
	// bubblewrap's bind shows it. The person made those links: the agent
	// can make no entry at a settings name. A project's protected links
	// (Protected) show nothing the run does not show already.
	Settings []string
	// Guarded are settings the run guards rather than keeps read-only
	// (their state directory stays writable whole, see agentbox): where
	// one is a link, what it leads to is shown read-only, as for Settings.
	Guarded []string
}

// hiddenAt reports whether p or a directory above it gets no access.
func hiddenAt(p string, special map[string]access) bool {
	for q := p; ; q = filepath.Dir(q) {
		if a, ok := special[q]; ok && a == denied {
			return true
		}
		if q == filepath.Dir(q) {
			return false
		}
	}
}

// AgentRules are the Landlock rules for a.
func AgentRules(a Agent) initproc.Landlock {
	var l initproc.Landlock
	special := map[string]access{}
	for _, h := range append(append([]string(nil), a.Hidden...), sandbox.SensitiveSystemFiles()...) {
		special[h] = denied
	}
	var targets []string
	for _, p := range slices.Concat(a.Protected, a.Settings) {
		markReadOnly(p, special)
	}
	for _, p := range slices.Concat(a.Settings, a.Guarded) {
		if t := linkTarget(p); t != "" && !hiddenAt(t, special) {
			targets = append(targets, t)
		}
	}
	systemRules(special, &l)
	readOnlyRules(a.ReadOnly, special, &l)
	readOnlyRules(targets, special, &l)
	workspaceRules(a.Workspaces, special, &l)
	for _, r := range a.ReadWrite {
		carve(r, readWrite, special, &l)
	}
	return l
}
