package token

import (
	"regexp"
	"strings"
	"testing"
)

// The hand-written check is the rule the regexps it replaced said.
func TestValidNameMatchesTheRule(t *testing.T) {
	name := regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)
	file := regexp.MustCompile(`^([a-z0-9][a-z0-9._-]{0,63})\.token$`)
	cases := []string{
		"", "a", "cursor", "claude.code", "my_agent-2", "0", "-a", ".a", "_a", "A", "aB", "a b", "a/b",
		"é", strings.Repeat("a", 64), strings.Repeat("a", 65), "a\n", "a.token",
	}
	for _, c := range cases {
		if got, want := ValidName(c), name.MatchString(c); got != want {
			t.Errorf("ValidName(%q) = %v, want %v", c, got, want)
		}
		for _, f := range []string{c + ".token", c, c + ".tokens", c + ".token.token"} {
			got, ok := NameOfFile(f)
			m := file.FindStringSubmatch(f)
			if ok != (m != nil) || ok && got != m[1] {
				t.Errorf("NameOfFile(%q) = %q %v, want %v", f, got, ok, m)
			}
		}
	}
}
