package call

import (
	"github.com/gatehouse-dev/gatehouse/backend/policy"
	"github.com/gatehouse-dev/gatehouse/backend/session"
)

// policySession is what policy needs of st's session for a call to tool.
// A mode that does not parse fails closed: the call is refused rather
// than run under a default.
func policySession(st *session.State, home string, sandboxed bool, tool string) (policy.Session, error) {
	info := st.Live.Snapshot()
	mode, err := policy.ParseMode(info.Mode)
	if err != nil {
		return policy.Session{}, toolErrorf(err, "This session's mode %q is not one Gatehouse knows, so it refused the call; the person can set the mode again.", info.Mode)
	}
	var protected []string
	if policy.ReadsProtected(tool) {
		protected = protectedPaths(st.Workspaces)
	}
	return policy.Session{Mode: mode, Workspaces: st.Workspaces, Home: home, Grants: st.Grants(), Goal: info.Goal, Sandboxed: sandboxed,
		Protected: protected}, nil
}
