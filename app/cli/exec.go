package cli

import (
	"fmt"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/gatehouse-dev/gatehouse/backend/transport/hookserver"
	"github.com/gatehouse-dev/gatehouse/backend/transport/hookwire"
)

// execCannotRun is the exit status when Gatehouse did not run the command,
// as a shell uses 126 for a command it found but could not execute.
const execCannotRun = 126

// execChangesRefused is the exit status of a command that succeeded but
// whose changes did not land (the person or policy discarded them, they
// were rolled back, or protected paths were kept out): the model must not
// take it for a done one. A command that failed keeps its own status.
const execChangesRefused = 1

func init() {
	register(func(g *Globals) *cobra.Command {
		var ticket, agent string
		cmd := &cobra.Command{
			Use:    "exec [--agent A] --ticket T -- COMMAND",
			Short:  "Run a shell command an agent's hook cleared, in the session's sandbox",
			Hidden: true,
			Long: `gatehouse exec is what an agent's own shell runs once ` + "`gatehouse hook`" + ` has cleared
its command: the daemon runs COMMAND in the agent session's sandbox, with
checkpoints and audit, and this prints its output and exits with its status.

What Gatehouse adds follows the command's stderr, one "gatehouse: …" line
each: what became of the command's changes (applied after your approval,
discarded with your message, rolled back, kept out, conflicts) and what
it saw that the output does not say.

Exit status: the command's own; 1 when the command succeeded but its
changes did not land (discarded, rolled back, or protected paths kept
out); 124 when it timed out; 128+N when signal N ended it; 126 when
Gatehouse did not run it (the reason is on stderr).`,
			Args: cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				dir, err := dataDir(g, "")
				if err != nil {
					return err
				}
				if agent != "" {
					if _, err := hookwire.ParseAgent(agent); err != nil {
						return userErrorf(err, "--agent: %v", err)
					}
				}
				// The ticket is the hook's, and only the token the hook
				// used may run it: the agent's own when it was installed.
				c, err := dialAgent(dir, agent)
				if err != nil {
					return err
				}
				var res hookserver.ExecResult
				if err := c.post(cmd.Context(), hookserver.ExecPath, hookserver.ExecRequest{Ticket: ticket, Command: args[0]}, &res); err != nil {
					return err
				}
				fmt.Fprint(g.Stdout, res.Stdout)
				fmt.Fprint(g.Stderr, res.Stderr)
				if len(res.Notes) > 0 && res.Stderr != "" && !strings.HasSuffix(res.Stderr, "\n") {
					fmt.Fprintln(g.Stderr)
				}
				for _, n := range res.Notes {
					fmt.Fprintf(g.Stderr, "gatehouse: %s\n", n)
				}
				if res.Warning != "" {
					fmt.Fprintf(g.Stderr, "[gatehouse: %s]\n", res.Warning)
				}
				if res.Error != "" {
					fmt.Fprintf(g.Stderr, "gatehouse: %s\n", res.Error)
					return exitCodeError{execCannotRun}
				}
				if code := execStatus(res); code != 0 {
					return exitCodeError{code}
				}
				return nil
			},
		}
		cmd.Flags().StringVar(&ticket, "ticket", "", "the ticket the hook gave this command")
		cmd.Flags().StringVar(&agent, "agent", "", "the agent whose hook cleared the command")
		_ = cmd.MarkFlagRequired("ticket")
		return cmd
	})
}

// execStatus is the exit status a shell would give: the command's own,
// 124 for a timeout (as timeout(1)), 128+N for a signal; and 1 for a
// command that succeeded but whose changes did not land.
func execStatus(res hookserver.ExecResult) int {
	if code := commandStatus(res); code != 0 || !res.ChangesRefused {
		return code
	}
	return execChangesRefused
}

// commandStatus is the command's own status, as a shell would give it.
func commandStatus(res hookserver.ExecResult) int {
	switch {
	case res.Killed && res.KillReason == "timeout":
		return 124
	case res.Signal != "":
		for n := syscall.Signal(1); n < 32; n++ {
			if n.String() == res.Signal || "SIG"+n.String() == res.Signal {
				return 128 + int(n)
			}
		}
		return 128 + int(syscall.SIGKILL)
	}
	return res.ExitCode
}
