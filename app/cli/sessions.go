package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gatehouse-dev/gatehouse/app/cli/termsafe"
	"github.com/gatehouse-dev/gatehouse/app/client"
	"github.com/gatehouse-dev/gatehouse/backend/agentusage"
	"github.com/gatehouse-dev/gatehouse/backend/audit"
	"github.com/gatehouse-dev/gatehouse/backend/session"
)

var sessionStatuses = []string{string(session.Active), string(session.Ended), string(session.Killed)}

func init() {
	register(func(g *Globals) *cobra.Command {
		var status string
		var limit int
		var asJSON bool
		cmd := &cobra.Command{
			Use:   "sessions [ID]",
			Short: "List agent sessions, or show one session's calls",
			Long: `Without an ID, lists sessions, newest first. With one, shows the session and
a table of its tool calls: when, which tool, the policy's verdict (and your
decision when it asked), what the call was about, and how it ended.`,
			Args: maxArgs(1, "an ID"),
			RunE: func(cmd *cobra.Command, args []string) error {
				if err := oneOf("--status", status, sessionStatuses, true); err != nil {
					return err
				}
				c, err := controlClient(g)
				if err != nil {
					return err
				}
				if len(args) == 1 {
					return showSession(cmd.Context(), g, c, args[0], asJSON)
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
				none := "No sessions yet. Wire an agent in with `gatehouse install claude|codex|gemini|cursor`, then start it."
				if status != "" {
					none = "No sessions with status " + status + "."
				}
				return printList(g.Stdout, asJSON, out.Sessions, none,
					sessionsHeader, sessionRow)
			},
		}
		cmd.Flags().StringVar(&status, "status", "", "only sessions with this status: active, ended, killed")
		cmd.Flags().IntVar(&limit, "limit", 50, "how many sessions to show, newest first")
		cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON (with an ID: the session and its calls)")
		return cmd
	})
}

const sessionsHeader = "ID\tCLIENT\tSTATUS\tMODE\tSTARTED\tDURATION\tCALLS\tDENIED\tWORKSPACE"

// sessionRow is one session in the list.
func sessionRow(s session.Info) string {
	ws := ""
	if len(s.Workspaces) > 0 {
		ws = s.Workspaces[0]
	}
	return fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s", termsafe.String(s.ID), clientLabel(s)+confinedTag(s), termsafe.String(string(s.Status)),
		termsafe.String(s.Mode), stamp(s.StartedAt), duration(s), s.Calls, s.Denied, termsafe.String(ws))
}

// confinedTag marks a session whose agent, and all it started, ran in a
// sandbox (`gatehouse run`): what it did on its own, outside the calls
// listed, was confined too.
func confinedTag(s session.Info) string {
	if s.Confined {
		return " [confined]"
	}
	return ""
}

// clientLabel is the token's name and, in brackets, the name the agent
// gave itself, which it controls.
func clientLabel(s session.Info) string {
	label := termsafe.String(s.Client)
	if s.ClientName != "" {
		label += " (" + termsafe.String(s.ClientName) + ")"
	}
	return label
}

func duration(s session.Info) time.Duration {
	end := time.Now()
	if s.EndedAt != nil {
		end = *s.EndedAt
	}
	return end.Sub(s.StartedAt).Round(time.Second)
}

func showSession(ctx context.Context, g *Globals, c *client.Client, id string, asJSON bool) error {
	var raw json.RawMessage
	if err := c.Get(ctx, "/api/v1/sessions/"+url.PathEscape(id), nil, &raw); err != nil {
		return apiErr(err)
	}
	var s session.Info
	var spent struct {
		Tokens *agentusage.Usage `json:"tokens"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return fmt.Errorf("read the session: %w", err)
	}
	_ = json.Unmarshal(raw, &spent) // an older daemon sends no tokens
	events, err := sessionEvents(ctx, c, s.ID)
	if err != nil {
		return apiErr(err)
	}
	calls := foldCalls(events)
	if asJSON {
		return printJSON(g.Stdout, struct {
			Session session.Info      `json:"session"`
			Tokens  *agentusage.Usage `json:"tokens,omitempty"`
			Calls   []callRow         `json:"calls"`
		}{s, spent.Tokens, calls})
	}
	fmt.Fprintf(g.Stdout, "Session %s: %s, %s, mode %s\n", termsafe.String(s.ID), clientLabel(s), termsafe.String(string(s.Status)), termsafe.String(s.Mode))
	if s.Confined {
		fmt.Fprintln(g.Stdout, "Confined: the agent and everything it started ran in a sandbox (gatehouse run).")
	}
	fmt.Fprintf(g.Stdout, "Started %s", stamp(s.StartedAt))
	if s.EndedAt != nil {
		fmt.Fprintf(g.Stdout, ", ended %s (%s)", stamp(*s.EndedAt), termsafe.String(s.EndReason))
	}
	fmt.Fprintf(g.Stdout, ", %s. Workspace: %s\n", duration(s), strings.Join(termsafe.Strings(s.Workspaces), ", "))
	fmt.Fprintf(g.Stdout, "%s\n", callsSummary(s))
	if t := spent.Tokens; t != nil {
		if t.Known {
			fmt.Fprintf(g.Stdout, "Tokens (as the agent recorded them): %d in, %d out", t.Input, t.Output)
			if t.CostUSD != nil {
				fmt.Fprintf(g.Stdout, ", $%.2f", *t.CostUSD)
			}
			fmt.Fprintln(g.Stdout)
		} else {
			fmt.Fprintf(g.Stdout, "Tokens: unknown (%s)\n", termsafe.String(t.Why))
		}
	}
	if s.Confined {
		printRunChanges(ctx, g.Stdout, c, s.ID)
	}
	fmt.Fprintln(g.Stdout)
	none := "No tool calls yet."
	if s.EndedAt != nil {
		none = "No tool calls."
	}
	return printList(g.Stdout, false, calls, none, "TIME\tCALL\tTOOL\tVERDICT\tARGS\tRESULT", func(r callRow) string {
		return fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s", stamp(r.Time), termsafe.String(r.ID), termsafe.String(r.Tool), r.verdict(), r.args(), r.result())
	})
}

// sessionEvents reads every audit event of one session, oldest first.
func sessionEvents(ctx context.Context, c *client.Client, id string) ([]audit.Event, error) {
	const page = 1000
	var all []audit.Event
	var after int64
	for {
		var out struct {
			Events []audit.Event `json:"events"`
		}
		q := url.Values{"session": {id}, "limit": {strconv.Itoa(page)}, "after": {strconv.FormatInt(after, 10)}}
		if err := c.Get(ctx, "/api/v1/events", q, &out); err != nil {
			return nil, err
		}
		all = append(all, out.Events...)
		if len(out.Events) < page {
			return all, nil
		}
		after = out.Events[len(out.Events)-1].Seq
	}
}
