package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

type stateReply struct {
	KilledSessions int `json:"killed_sessions"`
	State          struct {
		Paused bool `json:"paused"`
		Killed bool `json:"killed"`
		Active int  `json:"active_sessions"`
	} `json:"state"`
}

func switchCommand(g *Globals, use, short, path string, report func(stateReply) string) *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := client(g)
			if err != nil {
				return err
			}
			var out stateReply
			if err := c.Post(cmd.Context(), path, map[string]string{"reason": reason, "via": "cli"}, &out); err != nil {
				return apiErr(err)
			}
			fmt.Fprintln(g.Stdout, report(out))
			return nil
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why, recorded in the audit log")
	return cmd
}

func init() {
	register(func(g *Globals) *cobra.Command {
		return switchCommand(g, "kill", "Stop every agent now: kill their processes, deny pending approvals, refuse new calls until resume", "/api/v1/kill",
			func(r stateReply) string {
				return fmt.Sprintf("Stopped %s. New calls are refused until you run `gatehouse resume`.", plural(r.KilledSessions, "session", "sessions"))
			})
	})
	register(func(g *Globals) *cobra.Command {
		return switchCommand(g, "pause", "Make new tool calls wait until resume", "/api/v1/pause",
			func(r stateReply) string {
				return fmt.Sprintf("Paused. %s stay connected; new calls wait until `gatehouse resume`.", plural(r.State.Active, "session", "sessions"))
			})
	})
	register(func(g *Globals) *cobra.Command {
		return switchCommand(g, "resume", "Release paused calls and lift the kill switch", "/api/v1/resume",
			func(stateReply) string { return "Resumed. Agents may call tools again." })
	})
}
