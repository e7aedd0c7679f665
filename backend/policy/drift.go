package policy

import (
	"fmt"
	"strings"
)

// drift is the seed harness's intent re-check: a call that reaches for a
// credential, a metadata address or a secret file, when the person's
// request never mentions it, has likely drifted from the request (a
// prompt injection at work, say). It asks even where a rule would allow.
func drift(goal string, risks []Risk) (Risk, bool) {
	if strings.TrimSpace(goal) == "" {
		return Risk{}, false
	}
	lg := strings.ToLower(goal)
	for _, r := range risks {
		if r.Kind != RiskSensitive {
			continue
		}
		for _, n := range r.names {
			if n != "" && !strings.Contains(lg, strings.ToLower(n)) {
				return Risk{Kind: RiskDrift, field: fieldText, names: r.names,
					Detail: fmt.Sprintf("the person's request never mentions %s, which this call reaches for; the agent may have drifted from it", n)}, true
			}
		}
	}
	return Risk{}, false
}
