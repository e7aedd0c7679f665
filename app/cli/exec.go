package cli

import (
	"fmt"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/gatehouse-dev/gatehouse/backend/transport/hookserver"
	"github.com/gatehouse-dev/gatehouse/backend/transport/hookwire"
)

// execCannotRun is the exit status when Gatehouse did not run the command,
// as a shell uses 126 for a command it found but could not execute.
const execCannotRun = 126

func init() {
	register(func(g *Globals) *cobra.Command {
		var ticket, agent string
		cmd := &cobra.Command{
			Use:    "exec [--agent A] --ticket T -- COMMAND",
			Short:  "Run a shell command an agent's hook cleared, in the session's sandbox",
			Hidden: true,
			Long: `gatehouse exec is what an agent's own shell runs once ` + "`gatehouse hook`" + ` has cleared
its command: the daemon runs COMMAND in the agent session's sandbox, with
checkpoints and audit, and this prints its output and exits with its status.`,
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
// 124 for a timeout (as timeout(1)), 128+N for a signal.
func execStatus(res hookserver.ExecResult) int {
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
