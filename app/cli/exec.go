package cli

import (
	"github.com/gatehouse-dev/gatehouse/app/agentconn"
	"github.com/spf13/cobra"
)

func init() {
	register(func(g *Globals) *cobra.Command {
		var ticket, agent, cdFile string
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
it saw that the output does not say. With --cd-file (Claude Code, whose
shell keeps its directory), the directory the command's shell moved to
is written there, for the line the hook wrote to move the agent's shell.

Exit status: the command's own; 1 when the command succeeded but its
changes did not land (discarded, rolled back, or protected paths kept
out); 124 when it timed out; 128+N when signal N ended it; 130 when
this was interrupted (the command is stopped with it); 126 when
Gatehouse did not run it or could not finish it (the reason is on
stderr).`,
			Args: cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				if ticket == "" {
					return userErrorf(nil, "gatehouse exec runs only a command an agent's hook has cleared (the hook gives it a --ticket); to run a command confined yourself, use: gatehouse run -- COMMAND")
				}
				dir, err := dataDir(g, "")
				if err != nil {
					return err
				}
				line := agentconn.ExecLine{Dir: dir, Agent: agent, Ticket: ticket, Command: args[0], CdFile: cdFile}
				code, err := agentconn.Exec(cmd.Context(), line, cmd.InOrStdin(), g.Stdout, g.Stderr)
				if err != nil {
					reportError(g.Stderr, agentError(err))
				}
				if code != 0 {
					return exitCodeError{code}
				}
				return nil
			},
		}
		cmd.Flags().StringVar(&ticket, "ticket", "", "the ticket the hook gave this command")
		cmd.Flags().StringVar(&agent, "agent", "", "the agent whose hook cleared the command")
		cmd.Flags().StringVar(&cdFile, "cd-file", "", "where to leave the directory the command's shell moved to, for the agent's shell")
		return cmd
	})
}
