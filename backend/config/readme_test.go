package config

import (
	"os"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/policy"
)

// The README's config example parses as it stands, and its mode comment
// names every mode there is.
func TestReadmeConfigExample(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "```toml\nlisten = ")
	if !ok {
		t.Fatal("README.md has no config example (a toml block starting with listen = )")
	}
	example, _, _ := strings.Cut("listen = "+rest, "```")
	if _, err := Parse([]byte(example), "README.md's config example"); err != nil {
		t.Fatalf("the README's config example does not parse: %v", err)
	}
	var modeLine string
	for line := range strings.Lines(example) {
		if strings.HasPrefix(line, "mode = ") {
			modeLine = line
		}
	}
	if modeLine == "" {
		t.Fatal("the README's config example has no mode line")
	}
	for _, m := range append(policy.Modes, policy.ModeDefault) {
		if !strings.Contains(modeLine, string(m)) {
			t.Errorf("the README's mode line does not name %q: %s", m, modeLine)
		}
	}
}
