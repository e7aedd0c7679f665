//go:build integration

package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/agenttest"
	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// TestNativeReadOfAKeyIsRedacted: an agent's own Read of a private key,
// even after the person allows it, is pointed at a copy with the key's
// body redacted; a file with nothing to redact is read as it is.
func TestNativeReadOfAKeyIsRedacted(t *testing.T) {
	d := clitest.Start(t)
	const body = "MIIEowIBAAKCAQEA1b2c3d4e5f6Zm9vYmFyYmF6cXV4"
	key := filepath.Join(t.TempDir(), "id_rsa")
	if err := os.WriteFile(key, []byte("-----BEGIN RSA PRIVATE KEY-----\n"+body+"\n-----END RSA PRIVATE KEY-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(d.Workspace, "notes.txt")
	if err := os.WriteFile(plain, []byte("nothing secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func(run, path string) (string, map[string]any) {
		out, _, _ := hookRun(t, d.Bin, d.Data, "claude", preToolUse(run, "Read", map[string]any{"file_path": path}, d.Workspace))
		dec, reason, input := claudeDecision(t, out)
		if dec != "allow" {
			t.Fatalf("read of %s: %s %s", path, dec, reason)
		}
		return reason, input
	}
	// Outside the workspace: a card, which says what the model will see.
	done := make(chan map[string]any, 1)
	go func() { _, in := read("run-key", key); done <- in }()
	card := d.WaitApproval(clitest.CardWait)
	if !strings.Contains(strings.Join(card.Findings, " "), "private keys and tokens redacted") {
		t.Errorf("the card does not say what the model will see: %+v", card.Findings)
	}
	d.Decide(card.ID, "allow", "once", "")
	var input map[string]any
	select {
	case input = <-done:
	case <-time.After(time.Minute):
		t.Fatal("no answer to the read")
	}
	copyPath, _ := input["file_path"].(string)
	if copyPath == "" || copyPath == key {
		t.Fatalf("the read was not pointed at a redacted copy: %v", input)
	}
	b, err := os.ReadFile(copyPath)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), body) || !strings.Contains(string(b), "REDACTED") {
		t.Fatalf("the copy the model reads holds:\n%s", b)
	}
	// Nothing to redact: the agent reads the file itself.
	if _, in := read("run-key", plain); in != nil && in["file_path"] != nil && in["file_path"] != plain {
		t.Fatalf("a plain file was redirected: %v", in)
	}
}

// TestClaudeReadOfAKeyNeverReachesTheModel: the real Claude Code, its own
// Read of a private key allowed by the person, shows its model the file
// with the key's body redacted.
func TestClaudeReadOfAKeyNeverReachesTheModel(t *testing.T) {
	d := clitest.Start(t)
	const body = "MIIEowIBAAKCAQEA9z8y7x6w5v4u3t2s1r0q"
	key := filepath.Join(t.TempDir(), "id_rsa")
	if err := os.WriteFile(key, []byte("-----BEGIN RSA PRIVATE KEY-----\n"+body+"\n-----END RSA PRIVATE KEY-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	model := agenttest.StartModel(t, agenttest.Anthropic, agenttest.Script{
		agenttest.Call("Read", map[string]any{"file_path": key}), agenttest.Say("done"),
	})
	cli, ctx := installedAgent(t, d, "claude", agenttest.NewClaude, model)
	go func() {
		a := d.WaitApproval(2 * time.Minute)
		d.Decide(a.ID, "allow", "once", "")
	}()
	res, err := cli.RunClaude(ctx, d.Workspace, "show me the key", []string{"Read"})
	if err != nil {
		t.Fatal(err)
	}
	if res.ModelSaw(body) {
		t.Fatalf("the model saw the key's body:\n%s", strings.Join(res.ToolResults(), "\n---\n"))
	}
	if !res.ModelSaw("REDACTED") {
		t.Fatalf("the model saw no redacted copy:\n%s\ndaemon log:\n%s", strings.Join(res.ToolResults(), "\n---\n"), d.Log())
	}
}
