package cli

import (
	"fmt"

	"github.com/gatehouse-dev/gatehouse/backend/plural"
	"github.com/spf13/cobra"
)

type stateReply struct {
	KilledSessions int  `json:"killed_sessions"`
	Changed        bool `json:"changed"`
	Resumed        struct {
		WasPaused bool `json:"was_paused"`
		WasKilled bool `json:"was_killed"`
	} `json:"resumed"`
	State struct {
		Paused  bool `json:"paused"`
		Killed  bool `json:"killed"`
		Active  int  `json:"active_sessions"`
		Waiting int  `json:"waiting_calls"`
	} `json:"state"`
}

func switchCommand(g *Globals, use, short, path string, report func(stateReply) string) *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var out stateReply
			if err := postControl(cmd.Context(), g, path, map[string]string{"reason": reason, "via": "cli"}, &out); err != nil {
				return err
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
				return fmt.Sprintf("Stopped %s. New calls are refused until you run `gatehouse resume`.", plural.Count(r.KilledSessions, "session", "sessions"))
			})
	})
	register(func(g *Globals) *cobra.Command {
		return switchCommand(g, "pause", "Make new tool calls wait until resume", "/api/v1/pause",
			func(r stateReply) string {
				if !r.Changed {
					return "Already paused; new calls keep waiting until `gatehouse resume`."
				}
				return fmt.Sprintf("Paused. %s connected; new calls wait until `gatehouse resume`.", plural.Count(r.State.Active, "session stays", "sessions stay"))
			})
	})
	register(func(g *Globals) *cobra.Command {
		return switchCommand(g, "resume", "Release paused calls and lift the kill switch", "/api/v1/resume",
			func(r stateReply) string {
				switch {
				case r.Resumed.WasKilled:
					return "Resumed after the kill switch. Agents may connect and call tools again."
				case r.Resumed.WasPaused:
					return "Resumed. Waiting calls run now, and agents may call tools again."
				}
				return "Nothing was paused or stopped; agents were already free to call tools."
			})
	})
}
