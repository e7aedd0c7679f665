package cli

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gatehouse-dev/gatehouse/app/cli/termsafe"
	"github.com/gatehouse-dev/gatehouse/backend/plural"
	"github.com/gatehouse-dev/gatehouse/backend/snapshot"
)

func init() {
	register(func(g *Globals) *cobra.Command {
		var asJSON bool
		cmd := &cobra.Command{
			Use:   "checkpoints SESSION",
			Short: "List a session's checkpoints (one before and one after each changing call)",
			Args:  needArg("a SESSION", "gatehouse sessions"),
			RunE: func(cmd *cobra.Command, args []string) error {
				var out struct {
					Checkpoints []snapshot.Checkpoint `json:"checkpoints"`
				}
				if err := getControl(cmd.Context(), g, "/api/v1/sessions/"+url.PathEscape(args[0])+"/checkpoints", &out); err != nil {
					return err
				}
				return printList(g.Stdout, asJSON, out.Checkpoints, "No checkpoints: this session has not changed anything yet.",
					"CHECKPOINT\tCALL\tPHASE\tTIME\tFILES\tNOT RESTORABLE", func(cp snapshot.Checkpoint) string {
						return fmt.Sprintf("%s\t%s\t%s\t%s\t%d\t%d", termsafe.String(cp.ID), termsafe.String(cp.CallID), termsafe.String(string(cp.Phase)),
							stamp(cp.Time), cp.Stats.Files, len(cp.NotRestorable))
					})
			},
		}
		cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
		return cmd
	})
	register(func(g *Globals) *cobra.Command {
		var to, call string
		var dryRun, force, asJSON bool
		cmd := &cobra.Command{
			Use:   "rollback SESSION [--to CHECKPOINT | --call CALL]",
			Short: "Put the workspace back as it was before a call, or undo one call",
			Long: `Without --to or --call, rolls back to the session's first checkpoint (before its
first changing call). Files you edited yourself since the last call are kept
unless you pass --force. The current state is checkpointed first, so a
rollback can itself be undone.`,
			Args: needArg("a SESSION", "gatehouse sessions"),
			RunE: func(cmd *cobra.Command, args []string) error {
				c, err := controlClient(g)
				if err != nil {
					return err
				}
				sess := url.PathEscape(args[0])
				if to != "" && call != "" {
					return userErrorf(nil, "give either --to or --call, not both")
				}
				if to == "" && call == "" {
					var list struct {
						Checkpoints []snapshot.Checkpoint `json:"checkpoints"`
					}
					if err := c.Get(cmd.Context(), "/api/v1/sessions/"+sess+"/checkpoints", nil, &list); err != nil {
						return apiErr(err)
					}
					if len(list.Checkpoints) == 0 {
						return userErrorf(nil, "session %s has no checkpoints; nothing to roll back", termsafe.String(args[0]))
					}
					to = list.Checkpoints[0].ID
				}
				var out struct {
					Plan    snapshot.Plan   `json:"plan"`
					Summary rollbackSummary `json:"summary"`
					Applied bool            `json:"applied"`
					Result  snapshot.Result `json:"result"`
				}
				req := map[string]any{"checkpoint": to, "call": call, "dry_run": dryRun, "force": force}
				if err := c.Post(cmd.Context(), "/api/v1/sessions/"+sess+"/rollback", req, &out); err != nil {
					return apiErr(err)
				}
				if asJSON {
					return printJSON(g.Stdout, out)
				}
				printPlan(g, out.Summary, &out.Plan, dryRun)
				if out.Applied {
					fmt.Fprintf(g.Stdout, "Rolled back: %d restored, %d deleted, %d recreated. Undo with: gatehouse rollback %s --call %s\n",
						out.Result.Restored, out.Result.Deleted, out.Result.Recreated, termsafe.String(args[0]), termsafe.String(out.Result.CallID))
				}
				return nil
			},
		}
		f := cmd.Flags()
		f.StringVar(&to, "to", "", "checkpoint to return to (see gatehouse checkpoints)")
		f.StringVar(&call, "call", "", "undo only this call's changes")
		f.BoolVar(&dryRun, "dry-run", false, "show what would change, change nothing")
		f.BoolVar(&force, "force", false, "also overwrite files edited outside Gatehouse (and, for --call, later calls' changes)")
		f.BoolVar(&asJSON, "json", false, "print the plan and result as JSON")
		return cmd
	})
}

type rollbackSummary struct {
	Restore       []string `json:"restore"`
	Delete        []string `json:"delete"`
	Recreate      []string `json:"recreate"`
	Conflicts     []string `json:"conflicts"`
	ExternalEdits []string `json:"external_edits"`
	Diff          string   `json:"diff"`
}

// printPlan lists what a rollback changes and, on a dry run, the diffs.
// Paths and file contents are the agent's: escaped. A binary file is one
// line with its size, never its bytes.
func printPlan(g *Globals, s rollbackSummary, p *snapshot.Plan, dryRun bool) {
	line := func(label string, paths []string) {
		if len(paths) > 0 {
			fmt.Fprintf(g.Stdout, "%s (%d): %s\n", label, len(paths), strings.Join(termsafe.Strings(paths), ", "))
		}
	}
	if dryRun {
		fmt.Fprintln(g.Stdout, "Dry run; nothing was changed.")
	}
	line("restore", s.Restore)
	line("delete", s.Delete)
	line("recreate", s.Recreate)
	line("kept: edited outside Gatehouse (use --force to overwrite)", s.ExternalEdits)
	line("kept: changed again by a later call (use --force to overwrite)", s.Conflicts)
	if !dryRun {
		return
	}
	for _, it := range p.Items {
		switch {
		case it.Diff != "":
			fmt.Fprint(g.Stdout, termsafe.Text(it.Diff))
		case it.Binary:
			fmt.Fprintf(g.Stdout, "%s: binary, %s\n", termsafe.String(it.Path), binarySizes(p, it))
		}
	}
}

// binarySizes says how big a binary file is now and after the rollback,
// from the plan's steps for its path.
func binarySizes(p *snapshot.Plan, it snapshot.PlanItem) string {
	for _, op := range p.Ops {
		if op.Root != it.Root || op.Path != it.Path {
			continue
		}
		switch {
		case op.Expect != nil && op.Target != nil:
			return plural.Count(op.Expect.Size, "byte", "bytes") + " now, " + plural.Count(op.Target.Size, "byte", "bytes") + " after the rollback"
		case op.Target != nil:
			return plural.Count(op.Target.Size, "byte", "bytes") + " (recreated)"
		case op.Expect != nil:
			return plural.Count(op.Expect.Size, "byte", "bytes") + " (deleted)"
		}
	}
	return "size unknown"
}
