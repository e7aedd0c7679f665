package cli

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gatehouse-dev/gatehouse/app/cli/termsafe"
	"github.com/gatehouse-dev/gatehouse/backend/approval"
)

func init() {
	register(func(g *Globals) *cobra.Command {
		var asJSON bool
		cmd := &cobra.Command{
			Use:   "approvals",
			Short: "List calls waiting for your decision",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				c, err := controlClient(g)
				if err != nil {
					return err
				}
				var out struct {
					Approvals []approval.Request `json:"approvals"`
				}
				if err := c.Get(cmd.Context(), "/api/v1/approvals", nil, &out); err != nil {
					return apiErr(err)
				}
				// The switches hold calls that are not approvals; say so
				// first, or "nothing is waiting" would be untrue.
				// The agents' names are asked for only when a table shows them.
				var names map[string]string
				if !asJSON {
					if line := switchLine(cmd.Context(), c); line != "" {
						fmt.Fprintln(g.Stdout, line)
					}
					if len(out.Approvals) > 0 {
						names = clientNames(cmd.Context(), c)
					}
				}
				return printList(g.Stdout, asJSON, out.Approvals, "Nothing is waiting for your decision.",
					"ID\tAGENT\tTOOL\tWHAT\tWHY\tDENIED IN", func(a approval.Request) string {
						agent := termsafe.String(a.Actor)
						if n := names[a.Session]; n != "" {
							agent += " (" + termsafe.String(n) + ")"
						}
						return fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s", termsafe.String(a.ID), agent, termsafe.String(a.Tool), clip(what(a)),
							termsafe.String(a.Reason), time.Until(a.ExpiresAt).Round(time.Second))
					})
			},
		}
		cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
		return cmd
	})
	register(func(g *Globals) *cobra.Command {
		var session, always bool
		var answer string
		cmd := &cobra.Command{
			Use:   "approve ID",
			Short: "Allow a waiting call (once, for the session, or always), or answer a question with --answer",
			Args:  needArg("an approval ID", "gatehouse approvals"),
			RunE: func(cmd *cobra.Command, args []string) error {
				id := args[0]
				if cmd.Flags().Changed("answer") {
					if session || always {
						return userErrorf(nil, "--answer answers a question; it does not go with --session or --always")
					}
					return answerQuestion(cmd, g, id, answer)
				}
				scope := "once"
				switch {
				case session && always:
					return userErrorf(nil, "choose one of --session or --always")
				case session:
					scope = "session"
				case always:
					scope = "always"
				}
				// An allow without text would answer a question with
				// nothing, which the agent would read as consent.
				if card, err := pendingCard(cmd, g, id); err != nil {
					return err
				} else if card != nil && card.Kind == approval.KindQuestion {
					return userErrorf(nil, "%s is a question from the agent: answer it with gatehouse approve %s --answer TEXT, or decline with gatehouse deny %s",
						termsafe.String(id), termsafe.String(id), termsafe.String(id))
				}
				return decide(cmd, g, id, "allow", scope, "")
			},
		}
		cmd.Flags().BoolVar(&session, "session", false, "also allow the same command or path for the rest of this session")
		cmd.Flags().BoolVar(&always, "always", false, "write an allow rule to your policy file")
		cmd.Flags().StringVar(&answer, "answer", "", "answer a question card (ask_human) with TEXT")
		return cmd
	})
	register(func(g *Globals) *cobra.Command {
		var msg string
		cmd := &cobra.Command{
			Use:   "deny ID",
			Short: "Deny a waiting call; the message goes back to the agent",
			Args:  needArg("an approval ID", "gatehouse approvals"),
			RunE: func(cmd *cobra.Command, args []string) error {
				return decide(cmd, g, args[0], "deny", "once", msg)
			},
		}
		cmd.Flags().StringVarP(&msg, "message", "m", "", "tell the agent why, or what to do instead")
		return cmd
	})
}

// what is what the call wants, escaped: the agent wrote all of it.
func what(a approval.Request) string {
	switch {
	case len(a.Argv) > 0:
		return termsafe.Argv(a.Argv)
	case a.URL != "":
		return termsafe.String(a.URL)
	case len(a.Paths) > 0:
		return strings.Join(termsafe.Strings(a.Paths), ", ")
	case a.Question != "":
		return termsafe.String(a.Question)
	}
	return ""
}

func decide(cmd *cobra.Command, g *Globals, id, decision, scope, msg string) error {
	var out struct {
		Approval approval.Request `json:"approval"`
	}
	if err := postControl(cmd.Context(), g, "/api/v1/approvals/"+url.PathEscape(id), map[string]string{"decision": decision, "scope": scope, "message": msg}, &out); err != nil {
		return err
	}
	verb := "Allowed"
	if decision == "deny" {
		verb = "Denied"
	}
	fmt.Fprintf(g.Stdout, "%s %s (%s)", verb, what(out.Approval), termsafe.String(out.Approval.Tool))
	if decision == "allow" && scope != "once" {
		fmt.Fprintf(g.Stdout, " for %s", map[string]string{"session": "the rest of this session", "always": "always"}[scope])
		if scope == "always" && out.Approval.AlwaysRule != "" {
			fmt.Fprintf(g.Stdout, "; rule written:\n%s", termsafe.Text(out.Approval.AlwaysRule))
		}
	}
	fmt.Fprintln(g.Stdout)
	return nil
}

// answerQuestion sends text as the answer to a question card. An empty
// answer is refused here: the daemon would pass it to the agent as if the
// person had agreed to whatever it asked.
func answerQuestion(cmd *cobra.Command, g *Globals, id, text string) error {
	if strings.TrimSpace(text) == "" {
		return userErrorf(nil, "an empty answer is not sent: write the answer after --answer, or decline the question with gatehouse deny %s", termsafe.String(id))
	}
	card, err := pendingCard(cmd, g, id)
	if err != nil {
		return err
	}
	if card != nil && card.Kind != approval.KindQuestion {
		return userErrorf(nil, "%s is not a question but a %s card; --answer is only for questions (allow it with gatehouse approve %s)",
			termsafe.String(id), termsafe.String(string(card.Kind)), termsafe.String(id))
	}
	var out struct {
		Approval approval.Request `json:"approval"`
	}
	body := map[string]string{"decision": "allow", "scope": "once", "message": text}
	if err := postControl(cmd.Context(), g, "/api/v1/approvals/"+url.PathEscape(id), body, &out); err != nil {
		return err
	}
	fmt.Fprintf(g.Stdout, "Answered %s\n", termsafe.String(out.Approval.Question))
	return nil
}

// pendingCard is the waiting card with this id, or nil when none waits
// (the decision then gets the daemon's own sentence: decided, expired or
// withdrawn).
func pendingCard(cmd *cobra.Command, g *Globals, id string) (*approval.Request, error) {
	var out struct {
		Approvals []approval.Request `json:"approvals"`
	}
	if err := getControl(cmd.Context(), g, "/api/v1/approvals", &out); err != nil {
		return nil, err
	}
	for i := range out.Approvals {
		if out.Approvals[i].ID == id {
			return &out.Approvals[i], nil
		}
	}
	return nil, nil
}
