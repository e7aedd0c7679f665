package landlock

import (
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
}

// AgentRules are the Landlock rules for a.
func AgentRules(a Agent) initproc.Landlock {
	var l initproc.Landlock
	special := map[string]access{}
	for _, h := range append(append([]string(nil), a.Hidden...), sandbox.SensitiveSystemFiles()...) {
		special[h] = denied
	}
	for _, p := range a.Protected {
		markReadOnly(p, special)
	}
	systemRules(special, &l)
	readOnlyRules(a.ReadOnly, special, &l)
	workspaceRules(a.Workspaces, special, &l)
	for _, r := range a.ReadWrite {
		carve(r, readWrite, special, &l)
	}
	return l
}
