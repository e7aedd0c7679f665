//go:build integration

package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
	"github.com/gatehouse-dev/gatehouse/backend/policy"
)

// The organisation's rules: printf is denied, seq asks every time.
const orgPolicy = `
[[rule]]
id = "org-no-printf"
action = "deny"
tool = "run_command"
binary = "/usr/bin/printf"
reason = "printf is off limits here"

[[rule]]
id = "org-no-printf-bin"
action = "deny"
tool = "run_command"
binary = "/bin/printf"
reason = "printf is off limits here"

[[rule]]
id = "org-ask-seq"
action = "ask"
tool = "run_command"
binary = "/usr/bin/seq"

[[rule]]
id = "org-ask-seq-bin"
action = "ask"
tool = "run_command"
binary = "/bin/seq"
`

// What the person and the workspace try: allowing both.
const personPolicy = `
[[rule]]
id = "my-printf"
action = "allow"
tool = "run_command"
binary = "/usr/bin/printf"

[[rule]]
id = "my-seq"
action = "allow"
tool = "run_command"
binary = "/usr/bin/seq"
`

// writeManaged writes the managed file root-owned 0644 in a root-owned
// directory, as an administrator would; owner is chown'd after.
func writeManaged(t *testing.T, text string, owner int) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to write a root-owned managed policy (make test runs as root)")
	}
	dir := filepath.Join(t.TempDir(), "etc-gatehouse")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "policy.toml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(p, owner, owner); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestManagedPolicyThroughTheDaemon: through the real binary, a managed
// deny beats the person's allow rule, the workspace's and a card's
// "always"; a managed ask asks again after "always"; the Policy screen and
// the refusal say "set by your organisation"; a managed file broken while
// the daemon runs refuses every call until it is fixed.
func TestManagedPolicyThroughTheDaemon(t *testing.T) {
	managed := writeManaged(t, orgPolicy, 0)
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	clitest.WriteConfig(t, ws, "policy.toml", personPolicy)
	if err := os.MkdirAll(filepath.Join(ws, ".gatehouse"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".gatehouse", "policy.toml"), []byte(strings.ReplaceAll(personPolicy, "my-", "ws-")), 0o644); err != nil {
		t.Fatal(err)
	}
	d := clitest.StartWithEnv(t, filepath.Join(base, "data"), ws, []string{policy.ManagedPathTestOnlyEnv + "=" + managed})
	s := d.MCP(t.Context(), "managed")

	res := call(t, s, "run_command", map[string]any{"argv": []string{"printf", "hello"}})
	if text := clitest.Text(t, res); !res.IsError || !strings.Contains(text, policy.OrgSays) || !strings.Contains(text, "printf is off limits here") {
		t.Fatalf("printf under a managed deny: error=%v %s", res.IsError, text)
	}

	// seq asks; "always" on the card runs this call and loosens nothing.
	for round := range 2 {
		done := make(chan outcome, 1)
		go func() { done <- callAsync(t.Context(), s, "run_command", map[string]any{"argv": []string{"seq", "3"}}) }()
		card := d.WaitApproval(30 * time.Second)
		if !strings.Contains(card.Reason, policy.OrgSays) || !card.NoSessionScope {
			t.Fatalf("round %d: the card does not say the organisation set it, or offers this session: %+v", round, card)
		}
		if code := d.Decide(card.ID, "allow", "always", ""); code != 200 {
			t.Fatalf("round %d: decide = %d", round, code)
		}
		o := <-done
		if o.err != nil || o.res.IsError {
			t.Fatalf("round %d: seq after allow: %v %v", round, o.err, o.res)
		}
	}
	_, pol := d.Request("GET", "/api/v1/policy", nil, d.Control())
	if !strings.Contains(pol, `"stage":"managed"`) || !strings.Contains(pol, policy.OrgSays) {
		t.Fatalf("the Policy screen's rules do not show the organisation's: %s", pol)
	}

	// Broken while running: every call refused, with a sentence, until fixed.
	if err := os.WriteFile(managed, []byte("[[rule]\nid = "), 0o644); err != nil {
		t.Fatal(err)
	}
	clitest.WaitFor(t, 15*time.Second, "calls refused while the managed policy is broken", func() bool {
		res := call(t, s, "run_command", map[string]any{"argv": []string{"echo", "hi"}})
		return res.IsError && strings.Contains(clitest.Text(t, res), "does not load")
	})
	if err := os.WriteFile(managed, []byte(orgPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	clitest.WaitFor(t, 15*time.Second, "calls running again once it is fixed", func() bool {
		res := call(t, s, "run_command", map[string]any{"argv": []string{"echo", "hi"}})
		return !res.IsError
	})
}

// TestManagedPolicyOwnedByThePersonIgnored: a "managed" file that the
// person owns is not managed: ignored with a warning, and their own allow
// rule stands.
func TestManagedPolicyOwnedByThePersonIgnored(t *testing.T) {
	managed := writeManaged(t, orgPolicy, 1000)
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	clitest.WriteConfig(t, ws, "policy.toml", personPolicy)
	d := clitest.StartWithEnv(t, filepath.Join(base, "data"), ws, []string{policy.ManagedPathTestOnlyEnv + "=" + managed})
	s := d.MCP(t.Context(), "unmanaged")
	res := call(t, s, "run_command", map[string]any{"argv": []string{"printf", "hello"}})
	if text := clitest.Text(t, res); res.IsError || !strings.Contains(text, "hello") {
		t.Fatalf("printf with an ignored managed file: error=%v %s", res.IsError, text)
	}
	if !strings.Contains(d.Log(), "is not a managed policy") {
		t.Fatalf("no warning that the file is ignored; log:\n%s", d.Log())
	}
}
