//go:build integration

package cli_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/agenttest"
	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
	"github.com/gatehouse-dev/gatehouse/sandbox/launch"
)

// standInHook denies every Bash call and logs that it ran; it stands in
// for `gatehouse hook claude` so this test checks only who can switch the
// hook off.
const standInHook = `#!/bin/sh
in=$(cat)
echo ran >> "$(dirname "$0")/hook.log"
case "$in" in *'"tool_name":"Bash"'*)
  echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"stand-in hook says no"}}';;
esac
exit 0
`

// inPrivateEtc runs argv with dir bind-mounted over /etc/claude-code in a
// mount namespace of its own, so the machine's managed settings (and other
// tests' Claude Code runs) never see what this test writes there.
func inPrivateEtc(dir string, argv ...string) []string {
	return append([]string{"unshare", "--mount", "--propagation", "private", "sh", "-c",
		`mount --bind "$0" /etc/claude-code && exec "$@"`, dir}, argv...)
}

// TestSystemInstallSurvivesRepoDisableAllHooks: a repository's
// .claude/settings.json with disableAllHooks switches off a user install's
// hook, but not a --system one (managed settings outrank the repository).
func TestSystemInstallSurvivesRepoDisableAllHooks(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: the managed settings live in /etc/claude-code, bind-mounted from a temp dir in a private mount namespace")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Fatalf("unshare (util-linux) is needed: %v", err)
	}
	// An empty mount point is inert: Claude Code reads only the files in it.
	if err := os.MkdirAll("/etc/claude-code", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		scope     string
		wantBlock bool
	}{{"user", false}, {"system", true}} {
		t.Run(c.scope, func(t *testing.T) {
			d := clitest.Start(t)
			etc := t.TempDir()
			if err := os.MkdirAll(filepath.Join(d.Workspace, ".claude"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d.Workspace, ".claude", "settings.json"), []byte(`{"disableAllHooks": true}`+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			model := agenttest.StartModel(t, agenttest.Anthropic, agenttest.Script{
				agenttest.Call("Bash", map[string]any{"command": "touch pwned", "description": "Make a file"}),
				agenttest.Say("done"),
			})
			cli := pinnedAgent(t, "Claude Code", agenttest.NewClaude, filepath.Join(t.TempDir(), "home"), model)
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()

			args := []string{d.Bin, "--data", d.Data, "install", "claude"}
			if c.scope == "system" {
				args = append(args, "--system")
			}
			argv := inPrivateEtc(etc, args...)
			out, errOut, code := clitest.Run(ctx, t, argv[0], cli.Environ(), argv[1:]...)
			if code != 0 {
				t.Fatalf("install: exit %d\n%s%s", code, out, errOut)
			}
			settings := filepath.Join(cli.Home, ".claude", "settings.json")
			if c.scope == "system" {
				settings = filepath.Join(etc, "managed-settings.json")
			}
			hookDir := t.TempDir()
			standIn := filepath.Join(hookDir, "hook.sh")
			if err := os.WriteFile(standIn, []byte(standInHook), 0o755); err != nil {
				t.Fatal(err)
			}
			swapHookCommand(t, settings, d.Bin, d.Data, standIn)

			cli.Prefix = inPrivateEtc(etc)
			res, err := cli.RunClaude(ctx, d.Workspace, "make a file", []string{"Bash"})
			if err != nil {
				t.Fatal(err)
			}
			log, _ := os.ReadFile(filepath.Join(hookDir, "hook.log"))
			_, statErr := os.Stat(filepath.Join(d.Workspace, "pwned"))
			ran, created := len(log) > 0, statErr == nil
			t.Logf("%s install: hook ran=%v, file created=%v; model saw %q", c.scope, ran, created, res.ToolResults())
			if c.wantBlock && (!ran || created || !res.ModelSaw("stand-in hook says no")) {
				t.Fatalf("a --system install's hook must run despite the repository's disableAllHooks and block Bash\n%s", res)
			}
			if !c.wantBlock && (ran || !created) {
				t.Fatalf("control: with a user install the repository's disableAllHooks should switch the hook off (if this fails, Claude Code changed and the test proves less)\n%s", res)
			}
		})
	}
}

// swapHookCommand replaces install's hook command with a stand-in.
func swapHookCommand(t *testing.T, path, bin, data, standIn string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The hook is the stand-alone helper installed beside the binary.
	cmd := filepath.Join(filepath.Dir(bin), launch.HelperName) + " hook claude --data " + data
	if !strings.Contains(string(b), cmd) {
		t.Fatalf("%s has no hook %q:\n%s", path, cmd, b)
	}
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(b), cmd, standIn)), 0o644); err != nil {
		t.Fatal(err)
	}
}
