package audit

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Families are the first parts of every event kind ("tool" in
// "tool.call"). A kind filter outside them can only be a typo, so filters
// are checked against this list. "hook" is for agents' own tool calls,
// reported by their hooks; "run" for whole-agent runs (`gatehouse run`).
var Families = []string{"agent", "approval", "cache", "checkpoint", "effect", "exec", "exposure", "hook", "limit", "network", "policy", "rollback", "run", "session", "stage", "system", "token", "tool", "workspace", "boundary", "export"}

var kindRest = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z_]+(\.[a-z_]+)*$`) })

// ParseKindFilter checks a kind filter and returns it in the form Filter
// takes: an exact kind ("tool.call"), or a family with its dot ("tool.")
// for all of it; a bare family name ("tool") means the family.
func ParseKindFilter(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	family, rest, dotted := strings.Cut(s, ".")
	if !slices.Contains(Families, family) || (rest != "" && !kindRest().MatchString(rest)) {
		return "", fmt.Errorf("%q is not an event kind; give a family (%s) or a kind such as tool.call", s, strings.Join(Families, ", "))
	}
	if !dotted || rest == "" {
		return family + ".", nil
	}
	return s, nil
}
