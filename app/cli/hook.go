package cli

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gatehouse-dev/gatehouse/app/agentconn"
	"github.com/gatehouse-dev/gatehouse/backend/transport/hookwire"
)

func init() {
	register(func(g *Globals) *cobra.Command {
		var timeout time.Duration
		cmd := &cobra.Command{
			Use:   "hook claude|codex|gemini|cursor",
			Short: "The hook an agent runs around its own tools (stdin and stdout in that agent's hook format)",
			Long: `gatehouse hook is what an agent runs before and after each of its own tools
(Claude Code's Bash, Edit and Write; Codex's shell; Gemini CLI's run_shell_command).
It hands the call to the running daemon, which applies the same policy, cards,
budgets and audit as MCP calls, and rewrites shell commands to run in the
session's sandbox through ` + "`gatehouse exec`" + `. Any failure blocks the call:
a stopped daemon, a slow one, unreadable input. ` + "`gatehouse install AGENT`" + ` wires it in.`,
			Args: cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				agent, err := hookwire.ParseAgent(args[0])
				if err != nil {
					return userErrorf(err, "%v", err)
				}
				dir, err := dataDir(g, "")
				if err != nil {
					// Fail closed, in the agent's own format.
					var ue *UserError
					why := err.Error()
					if errors.As(err, &ue) {
						why = ue.Msg
					}
					reason := "Gatehouse blocked this call: " + strings.TrimSuffix(why, ".") + "."
					fmt.Fprintln(g.Stderr, reason)
					_, _ = g.Stdout.Write(hookwire.Block(agent, hookwire.Event{}, reason))
					return exitCodeError{hookwire.BlockExit}
				}
				stdout, code := agentconn.Hook(cmd.Context(), dir, agent, cmd.InOrStdin(), g.Stderr, timeout)
				_, _ = g.Stdout.Write(stdout)
				if code != 0 {
					return exitCodeError{code}
				}
				return nil
			},
		}
		cmd.Flags().DurationVar(&timeout, "timeout", agentconn.DefaultHookTimeout, "answer (with a block) before this much time has passed; keep it under the agent's own hook timeout")
		return cmd
	})
}
