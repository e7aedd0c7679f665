package cli

import (
	"fmt"
	"net/url"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/gatehouse-dev/gatehouse/backend/session"
)

func init() {
	register(func(g *Globals) *cobra.Command {
		var status string
		var limit int
		var asJSON bool
		cmd := &cobra.Command{
			Use:   "sessions [ID]",
			Short: "List agent sessions, or show one",
			Args:  cobra.MaximumNArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				c, err := client(g)
				if err != nil {
					return err
				}
				if len(args) == 1 {
					var s session.Info
					if err := c.Get(cmd.Context(), "/api/v1/sessions/"+url.PathEscape(args[0]), nil, &s); err != nil {
						return apiErr(err)
					}
					return printJSON(g.Stdout, s)
				}
				q := url.Values{"limit": {strconv.Itoa(limit)}}
				if status != "" {
					q.Set("status", status)
				}
				var out struct {
					Sessions []session.Info `json:"sessions"`
				}
				if err := c.Get(cmd.Context(), "/api/v1/sessions", q, &out); err != nil {
					return apiErr(err)
				}
				if asJSON {
					return printJSON(g.Stdout, out.Sessions)
				}
				if len(out.Sessions) == 0 {
					fmt.Fprintln(g.Stdout, "No sessions yet. Connect an agent: see `gatehouse mcp --help`.")
					return nil
				}
				tw := tabwriter.NewWriter(g.Stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tCLIENT\tSTATUS\tMODE\tSTARTED\tDURATION\tCALLS\tDENIED\tWORKSPACE")
				for _, s := range out.Sessions {
					end := time.Now()
					if s.EndedAt != nil {
						end = *s.EndedAt
					}
					ws := ""
					if len(s.Workspaces) > 0 {
						ws = s.Workspaces[0]
					}
					client := s.Client
					if s.ClientName != "" {
						client += " (" + s.ClientName + ")"
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\n", s.ID, client, s.Status, s.Mode,
						s.StartedAt.Local().Format("2006-01-02 15:04:05"), end.Sub(s.StartedAt).Round(time.Second), s.Calls, s.Denied, ws)
				}
				return tw.Flush()
			},
		}
		cmd.Flags().StringVar(&status, "status", "", "only sessions with this status: active, ended, killed")
		cmd.Flags().IntVar(&limit, "limit", 50, "how many sessions to show, newest first")
		cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
		return cmd
	})
}
