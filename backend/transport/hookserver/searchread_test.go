package hookserver

import (
	"encoding/json"
	"testing"
)

// The exclusions follow what the agent asked for, which they keep, and
// every other member of the input is left as it was.
func TestSearchExclusions(t *testing.T) {
	globs := []string{".env", "*.pem"}
	for _, c := range []struct{ in, want string }{
		{`{"pattern":"x"}`, `{"glob":"!.env !*.pem","pattern":"x"}`},
		{`{"pattern":"x","glob":"*.ts"}`, `{"glob":"*.ts !.env !*.pem","pattern":"x"}`},
		{`{"pattern":"x","glob":null}`, `{"glob":"!.env !*.pem","pattern":"x"}`},
	} {
		got, err := withExclusions(json.RawMessage(c.in), "glob", globs)
		if err != nil || string(got) != c.want {
			t.Errorf("withExclusions(%s) = %s (%v), want %s", c.in, got, err, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{`{"include":["**/*"]}`, `{"exclude":["**/.env","**/.env/**","**/*.pem","**/*.pem/**"],"include":["**/*"]}`},
		{`{"include":["a"],"exclude":["*.log"]}`, `{"exclude":["*.log","**/.env","**/.env/**","**/*.pem","**/*.pem/**"],"include":["a"]}`},
	} {
		got, err := withExcludeList(json.RawMessage(c.in), "exclude", globs)
		if err != nil || string(got) != c.want {
			t.Errorf("withExcludeList(%s) = %s (%v), want %s", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{`[1]`, `{"glob":3}`} {
		if _, err := withExclusions(json.RawMessage(bad), "glob", globs); err == nil {
			t.Errorf("withExclusions(%s) took it", bad)
		}
	}
	if _, err := withExcludeList(json.RawMessage(`{"exclude":"*.log"}`), "exclude", globs); err == nil {
		t.Errorf("withExcludeList took a string for a list")
	}
}

// A path left out of a search matches itself alone, as one word.
func TestLiteralGlob(t *testing.T) {
	for in, want := range map[string]string{
		"config/settings.yml": "config/settings.yml",
		"a b,c/[x]*.go":       `a?b?c/\[x\]\*.go`,
		`we{ird}!?\`:          `we\{ird\}\!\?\\`,
	} {
		if got := literalGlob(in); got != want {
			t.Errorf("literalGlob(%q) = %q, want %q", in, got, want)
		}
	}
}
