//go:build integration

package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// Through the real daemon and its default sandbox: a command reads no
// workspace secret but the one the config exposes, cannot write the
// hooks directory the repository's core.hooksPath names (auto mode runs
// the command without a card; the OS refuses the write), and a file tool
// asks before writing there.
func TestWorkspaceSecretsAndHooksPath(t *testing.T) {
	_, err := exec.LookPath("git")
	if err != nil {
		t.Fatalf("git is required for this test: %v", err)
	}
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	clitest.WriteConfig(t, ws, "config.toml", "[sandbox]\nexpose_secrets = [\"testdata/\"]\n")
	secret := "gatehouse-e2e-secret-7d1f"
	hook := "#!/bin/sh\nexit 0\n"
	for _, err := range []error{
		os.MkdirAll(filepath.Join(ws, "testdata"), 0o755),
		os.MkdirAll(filepath.Join(ws, "tools", "githooks"), 0o755),
		os.WriteFile(filepath.Join(ws, ".env"), []byte("API_KEY="+secret+"\n"), 0o600),
		os.WriteFile(filepath.Join(ws, "testdata", "k.pem"), []byte("FIXTURE\n"), 0o644),
		os.WriteFile(filepath.Join(ws, "tools", "githooks", "pre-commit"), []byte(hook), 0o755),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"config", "core.hooksPath", "tools/githooks"}} {
		gitWith(t, ws, []string{"HOME=" + base, "PATH=/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM=1"}, args...)
	}
	d := clitest.StartWith(t, filepath.Join(base, "data"), ws)
	s := d.MCP(t.Context(), "protect")

	if out := clitest.Text(t, call(t, s, "run_command", map[string]any{"argv": []string{"cat", ".env"}})); strings.Contains(out, secret) {
		t.Fatalf("cat .env read the secret: %s", out)
	}
	if out := clitest.Text(t, call(t, s, "run_command", map[string]any{"argv": []string{"cat", "k.pem"}, "cwd": "testdata"})); !strings.Contains(out, "FIXTURE") {
		t.Fatalf("the exposed secret was not readable: %s", out)
	}

	// In auto mode a sandboxed sh runs without a card: the OS refuses.
	out := clitest.Text(t, call(t, s, "run_command", map[string]any{"argv": []string{"sh", "-c", "echo evil > tools/githooks/pre-commit; echo evil > tools/githooks/post-commit"}}))
	if b, _ := os.ReadFile(filepath.Join(ws, "tools", "githooks", "pre-commit")); string(b) != hook {
		t.Fatalf("a command rewrote the hook git runs: %q\n%s", b, out)
	}
	if _, err := os.Lstat(filepath.Join(ws, "tools", "githooks", "post-commit")); err == nil {
		t.Fatal("a command added a hook")
	}

	done := make(chan outcome, 1)
	go func() {
		done <- callAsync(t.Context(), s, "write_file", map[string]any{"path": "tools/githooks/pre-commit", "content": "evil"})
	}()
	a := d.WaitApproval(clitest.CardWait)
	if !strings.Contains(a.Reason, "git") {
		t.Errorf("the card does not say git runs it: %q", a.Reason)
	}
	d.Decide(a.ID, "deny", "once", "")
	if o := <-done; o.err == nil && !o.res.IsError {
		t.Fatal("write_file ran after the person denied it")
	}
}
