//go:build integration

package cli_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/agenttest"
)

// TestInstalledAgentReadsADiscardedChange: the real agent's own shell runs
// `git reset --hard HEAD~2` through its hook and `gatehouse exec`; the
// history rewrite waits on an effect card, which the person denies with a
// message. The model must read a failed command (a non-zero exit) and the
// person's words, not git's "HEAD is now at …" and success; and the
// workspace keeps its history.
func TestInstalledAgentReadsADiscardedChange(t *testing.T) {
	const message = "keep my history, please"
	for _, c := range []struct {
		name string
		api  agenttest.API
		call agenttest.Step
		new  func(home string, m *agenttest.Model) (*agenttest.CLI, error)
		run  func(ctx context.Context, c *agenttest.CLI, dir string) (*agenttest.Result, error)
		// exited is how the agent shows its model a command that exited 1.
		exited string
	}{
		{"claude", agenttest.Anthropic, agenttest.Call("Bash", map[string]any{"command": "git reset --hard HEAD~2", "description": "Drop the last two commits"}), agenttest.NewClaude,
			func(ctx context.Context, c *agenttest.CLI, dir string) (*agenttest.Result, error) {
				return c.RunClaude(ctx, dir, "drop the last two commits", []string{"Bash"})
			}, "Exit code 1"},
		{"codex", agenttest.OpenAI, agenttest.Call("exec_command", map[string]any{"cmd": "git reset --hard HEAD~2"}), agenttest.NewCodex,
			func(ctx context.Context, c *agenttest.CLI, dir string) (*agenttest.Result, error) {
				// As TestInstalledAgentOwnShellRunsInSandbox: Codex's own
				// sandbox must let `gatehouse exec` reach the daemon.
				return c.RunCodex(ctx, dir, "drop the last two commits", "-c", `sandbox_mode="workspace-write"`, "-c", "sandbox_workspace_write.network_access=true")
			}, "exited with code 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := startEffectDaemon(t)
			head := hostGitIn(t, d.Workspace, "rev-parse", "HEAD")
			model := agenttest.StartModel(t, c.api, agenttest.Script{c.call, agenttest.Say("done")})
			cli, ctx := installedAgent(t, d, c.name, c.new, model)
			type ran struct {
				res *agenttest.Result
				err error
			}
			done := make(chan ran, 1)
			go func() {
				res, err := c.run(ctx, cli, d.Workspace)
				done <- ran{res, err}
			}()
			a := d.WaitApproval(3 * time.Minute)
			if a.Kind != "effect" {
				t.Fatalf("card %+v", a)
			}
			d.Decide(a.ID, "deny", "once", message)
			var r ran
			select {
			case r = <-done:
			case <-ctx.Done():
				t.Fatal("the agent did not finish after the decision")
			}
			if r.err != nil {
				t.Fatal(r.err)
			}
			if !r.res.ModelSaw(message) || !r.res.ModelSaw(c.exited) || !r.res.ModelSaw("gatehouse: ") {
				t.Fatalf("the model should read a failure and the person's message:\n%s\n%s\ndaemon log:\n%s", strings.Join(r.res.ToolResults(), "\n---\n"), r.res, d.Log())
			}
			if got := hostGitIn(t, d.Workspace, "rev-parse", "HEAD"); got != head {
				t.Fatalf("HEAD moved to %s after the discard", got)
			}
			t.Logf("the model read:\n%s", strings.Join(r.res.ToolResults(), "\n---\n"))
		})
	}
}
