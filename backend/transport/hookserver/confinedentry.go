package hookserver

import (
	"github.com/gatehouse-dev/gatehouse/backend/call"
	"github.com/gatehouse-dev/gatehouse/backend/session"
	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// confinedNewEntry refuses, with the reason, an agent's own write of a
// new file that its Landlock sandbox would refuse: the agent is confined
// whole (`gatehouse run`), its tools in the sandbox too, and a directory
// that lacks a name steering the next session, or holds a secret, takes
// no new entry there (e: the secrets the person exposes, which are not
// hidden). Allowed, the write would reach the model as a bare EACCES,
// and it would try again another way. "" when the write may go.
func confinedNewEntry(st *session.State, paths []string, e protect.Exposure) string {
	if st.Backend != "landlock" {
		return ""
	}
	for _, p := range paths {
		if reason := call.LandlockLockedEntry(p, st.Workspaces, e); reason != "" {
			return reason
		}
	}
	return ""
}
