package hookserver

import (
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/call"
	"github.com/gatehouse-dev/gatehouse/backend/session"
)

// An edit the agent's own tool makes is checkpointed before (PreToolUse)
// and recorded after (PostToolUse); pending holds the clearance between
// the two, keyed by the agent's tool-use id (or its tool and input when
// the agent sends none).
type pendingEdit struct {
	cl     *call.Clearance
	native string
}

const pendingTTL = time.Hour

func editKey(run session.RunKey, useID, tool string, input []byte) string {
	if useID != "" {
		return run.String() + "\x00" + useID
	}
	return run.String() + "\x00" + tool + "\x00" + string(input)
}
