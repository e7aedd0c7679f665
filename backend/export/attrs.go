package export

import (
	"encoding/json"
	"strings"

	"github.com/gatehouse-dev/gatehouse/backend/audit"
)

// toolOf is the tool an event's payload names, for the GenAI attributes:
// the agent's own tool name when the call came through its hook (what the
// agent called it), else Gatehouse's. ok is false for events that are not
// about a tool call.
func toolOf(e *audit.Event) (name string, ok bool) {
	family, _, _ := strings.Cut(e.Kind, ".")
	if family != "tool" && family != "hook" {
		return "", false
	}
	var p struct {
		Tool   string `json:"tool"`
		Native any    `json:"native"`
	}
	if json.Unmarshal(e.Payload, &p) != nil {
		return "", false
	}
	if n, isStr := p.Native.(string); isStr && n != "" {
		return n, true
	}
	return p.Tool, p.Tool != ""
}

// warning marks kinds that say something was refused or went wrong; they
// export at a higher severity so a collector's alerting can pick them out.
func warning(kind string) bool {
	for _, s := range []string{".denied", ".refused", ".error", ".killed", ".kill", ".dropped", ".expired", ".suspected", ".failed", ".rule_failed"} {
		if strings.HasSuffix(kind, s) {
			return true
		}
	}
	return false
}
