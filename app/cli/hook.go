package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gatehouse-dev/gatehouse/backend/transport/hookwire"
	"github.com/gatehouse-dev/gatehouse/sandbox/launch"
)

// defaultHookTimeout answers before the shortest default hook timeout of the
// agents (60 s), so the agent never kills the hook and lets the call
// through; `gatehouse install` configures a longer one on both sides, so a
// card can wait for the person.
const defaultHookTimeout = 55 * time.Second

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
				stdout, code := runHook(cmd.Context(), g, agent, cmd.InOrStdin(), timeout)
				_, _ = g.Stdout.Write(stdout)
				if code != 0 {
					return exitCodeError{code}
				}
				return nil
			},
		}
		cmd.Flags().DurationVar(&timeout, "timeout", defaultHookTimeout, "answer (with a block) before this much time has passed; keep it under the agent's own hook timeout")
		return cmd
	})
}

// runHook answers one hook invocation; it never lets an internal failure
// through as an allow.
func runHook(ctx context.Context, g *Globals, agent hookwire.Agent, in io.Reader, timeout time.Duration) ([]byte, int) {
	raw, err := io.ReadAll(io.LimitReader(in, hookwire.MaxStdin+1))
	if err != nil {
		return blocked(g, agent, hookwire.Event{}, "Gatehouse could not read the hook input, so it blocked the call.")
	}
	ev, err := hookwire.Parse(agent, raw)
	if err != nil {
		return blocked(g, agent, hookwire.Event{}, "Gatehouse could not read the hook input ("+err.Error()+"), so it blocked the call.")
	}
	if runByProcess[string(agent)] {
		// The run its MCP bridge names too (see runByProcess); the agent's
		// own session id is known only here.
		if p := agentProcess(); p != "" {
			ev.AgentSessionID, ev.SessionID = ev.SessionID, p
		}
	}
	if ev.Kind == hookwire.PreTool && hookwire.GatehouseTool(ev) {
		// Gatehouse gates the MCP call itself; no second card, no second row.
		return hookwire.Render(agent, ev, hookwire.Answer{Verdict: hookwire.Allow}), 0
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ans, err := askDaemon(ctx, g, agent, ev)
	if err != nil {
		why := plainError(err)
		if errors.Is(err, context.DeadlineExceeded) {
			why = fmt.Sprintf("the Gatehouse daemon did not answer within %s", timeout)
		}
		if ev.Kind != hookwire.PreTool {
			// Nothing to block: the tool has run, or no tool is involved.
			fmt.Fprintf(g.Stderr, "gatehouse: %s\n", why)
			return hookwire.Render(agent, ev, hookwire.Answer{Verdict: hookwire.None}), 0
		}
		return blocked(g, agent, ev, "Gatehouse blocked this call: "+why+".")
	}
	return hookwire.Render(agent, ev, ans), 0
}

func askDaemon(ctx context.Context, g *Globals, agent hookwire.Agent, ev hookwire.Event) (hookwire.Answer, error) {
	dir, err := dataDir(g, "")
	if err != nil {
		return hookwire.Answer{}, err
	}
	c, err := dialAgent(dir, string(agent))
	if err != nil {
		return hookwire.Answer{}, err
	}
	// The agent's shell starts the stand-alone helper where one is
	// installed beside this binary: static and small, it starts in about
	// a millisecond where gatehouse takes five (agentconn.Main).
	exe, err := launch.DefaultHelper()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		return hookwire.Answer{}, fmt.Errorf("find the gatehouse binary: %w", err)
	}
	var ans hookwire.Answer
	if err := c.post(ctx, hookwire.HookPath, hookwire.HookRequest{Event: ev, Exec: []string{exe, "--data", dir}}, &ans); err != nil {
		return hookwire.Answer{}, err
	}
	switch ans.Verdict {
	case hookwire.Allow, hookwire.Deny, hookwire.None:
		return ans, nil
	}
	return hookwire.Answer{}, fmt.Errorf("the daemon's answer %q is not one this gatehouse knows", ans.Verdict)
}

// blocked is the fail-closed answer: a deny in the agent's format, the
// reason on stderr too, and the exit status every agent reads as a block.
func blocked(g *Globals, agent hookwire.Agent, ev hookwire.Event, reason string) ([]byte, int) {
	fmt.Fprintln(g.Stderr, reason)
	return hookwire.Block(agent, ev, reason), hookwire.BlockExit
}

// plainError is the sentence of an error meant for people.
func plainError(err error) string {
	var ue *UserError
	if errors.As(err, &ue) {
		return strings.TrimSuffix(ue.Msg, ".")
	}
	return strings.TrimSuffix(err.Error(), ".")
}
