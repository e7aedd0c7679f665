package seatbelt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The whole-agent profile, golden: its order is its meaning (later rules
// win), so a change to it shows here.
func TestAgentProfileGolden(t *testing.T) {
	got := AgentProfile(Agent{
		Workspaces:   []string{"/Users/ann/src/app"},
		Protected:    []string{"/Users/ann/src/app/.git/hooks", "/Users/ann/src/app/CLAUDE.md"},
		Hidden:       []string{"/Users/ann/src/app/.env", "/Users/ann/Library/Application Support/Gatehouse"},
		Home:         "/Users/ann",
		HomeDir:      "/Users/ann/Library/Application Support/Gatehouse/agents/claude/home",
		Tmp:          "/private/tmp/gatehouse-run-1",
		ReadOnly:     []string{"/Users/ann/.nvm/versions/node/v22.0.0", "/Users/ann/.local/share/claude"},
		ReadWrite:    []string{"/Users/ann/.claude"},
		ReadOnlyOver: []string{"/Users/ann/.claude/settings.json", "/Users/ann/.claude/hooks"},
		ProxyPort:    49152, AgentPort: 49153,
	})
	golden := filepath.Join("testdata", "agent-claude.sb")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./sandbox/seatbelt -run TestAgentProfileGolden -update)", err)
	}
	if got != string(want) {
		t.Fatalf("profile differs from %s:\n%s", golden, got)
	}
	// The rules that make it a boundary, in the order that makes them
	// hold: the real home denied after the system grants and before the
	// agent's own state; settings and secrets after the grants.
	order := []string{`(deny default)`, `(deny file-read* file-write* (subpath "/Users/ann"))`,
		`(subpath "/Users/ann/.claude")`, `(deny file-write*`, `(deny file-read* file-write*` + "\n" + `  (subpath "/Users/ann/src/app/.env")`,
		`(allow file-read* file-write* (subpath "/Users/ann/Library/Application Support/Gatehouse/agents/claude/home"))`,
		`(remote tcp "localhost:49152")`}
	at := 0
	for _, o := range order {
		i := strings.Index(got[at:], o)
		if i < 0 {
			t.Fatalf("%q missing or out of order in:\n%s", o, got)
		}
		at += i
	}
}
