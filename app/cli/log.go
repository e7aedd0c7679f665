package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/gatehouse-dev/gatehouse/app/cli/termsafe"
	"github.com/gatehouse-dev/gatehouse/app/client"
	"github.com/gatehouse-dev/gatehouse/backend/audit"
	"github.com/gatehouse-dev/gatehouse/backend/plural"
)

// maxLogHistory is the most past events one page of the API returns.
const maxLogHistory = 1000

func init() {
	register(func(g *Globals) *cobra.Command {
		var follow, asJSON, full bool
		var sess, kind, actor string
		var limit int
		cmd := &cobra.Command{
			Use:   "log",
			Short: "Show the audit timeline (-f to follow it live)",
			Long: `Shows the last events of the audit timeline, oldest first, and with -f keeps
printing new ones. -n 0 -f prints only what happens from now on. With the
daemon stopped, it reads the past events from the data directory.

Each event's payload is printed whole up to 4096 characters; a longer one is
cut with a note saying how much is left out, and --full (or --json) prints
every payload whole.`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				k, err := audit.ParseKindFilter(kind)
				if err != nil {
					return userErrorf(nil, "--kind %v", err)
				}
				switch {
				case limit < 0 || limit > maxLogHistory:
					return userErrorf(nil, "-n must be a number of events from 0 to %d", maxLogHistory)
				case limit == 0 && !follow:
					return userErrorf(nil, "-n 0 shows no past events; add -f to follow new ones")
				}
				c, err := controlClient(g)
				if err != nil {
					return err
				}
				q := url.Values{}
				for k, v := range map[string]string{"session": sess, "kind": k, "actor": actor} {
					if v != "" {
						q.Set(k, v)
					}
				}
				p := eventPrinter{w: g.Stdout, asJSON: asJSON, full: full}
				after, err := printHistory(cmd, c, q, limit, p)
				if errors.Is(err, client.ErrNoDaemon) && !follow {
					// What happened is in the data dir whether or not the
					// daemon runs: after a kill is when people look.
					return printStoredHistory(cmd, g, audit.Filter{Session: sess, Kind: k, Actor: actor}, limit, p)
				}
				if err != nil {
					return apiErr(err)
				}
				if !follow {
					return nil
				}
				q.Set("after", strconv.FormatInt(after, 10))
				err = c.Stream(cmd.Context(), "/api/v1/events/stream", q, func(event, _ string, data []byte) error {
					if event != "audit" {
						if event == "dropped" {
							return fmt.Errorf("the daemon dropped this stream: %s", termsafe.String(string(data)))
						}
						return nil
					}
					var e audit.Event
					if err := json.Unmarshal(data, &e); err != nil {
						return err
					}
					p.print(e)
					return nil
				})
				if cmd.Context().Err() != nil {
					return nil // Ctrl-C
				}
				if err == nil {
					return userErrorf(nil, "the daemon closed the stream (it stopped)")
				}
				return apiErr(err)
			},
		}
		f := cmd.Flags()
		f.BoolVarP(&follow, "follow", "f", false, "keep printing new events as they happen")
		f.BoolVar(&asJSON, "json", false, "print one JSON event per line")
		f.BoolVar(&full, "full", false, "print every payload whole, however long")
		f.StringVar(&sess, "session", "", "only this session")
		f.StringVar(&kind, "kind", "", `only this kind (tool.call) or family (tool)`)
		f.StringVar(&actor, "actor", "", "only this actor (human, policy, system, agent:NAME)")
		f.IntVarP(&limit, "limit", "n", 50, "how many past events to show first (0 with -f: none)")
		return cmd
	})
}

// printStoredHistory is printHistory read from the database in the data
// dir, for when no daemon answers.
func printStoredHistory(cmd *cobra.Command, g *Globals, f audit.Filter, limit int, p eventPrinter) error {
	store, done, err := openAudit(cmd.Context(), g)
	if err != nil {
		return err
	}
	defer done()
	events, err := store.Query(cmd.Context(), audit.Query{Filter: f, Limit: limit, Newest: true})
	if err != nil {
		return userErrorf(err, "cannot read the audit log: %v", err)
	}
	fmt.Fprintln(g.Stderr, "The daemon is not running; these are the events recorded before it stopped (start it with `gatehouse serve` to follow new ones).")
	slices.Reverse(events)
	for _, e := range events {
		p.print(e)
	}
	return nil
}

// printHistory prints the last limit events matching q and returns the seq
// to follow from. With limit 0 it prints nothing and follows from the
// newest event.
func printHistory(cmd *cobra.Command, c *client.Client, q url.Values, limit int, p eventPrinter) (int64, error) {
	last := url.Values{"order": {"desc"}, "limit": {strconv.Itoa(max(limit, 1))}}
	for k, v := range q {
		last[k] = v
	}
	var page struct {
		Events []audit.Event `json:"events"`
	}
	if err := c.Get(cmd.Context(), "/api/v1/events", last, &page); err != nil {
		return 0, err
	}
	var after int64
	if len(page.Events) > 0 {
		after = page.Events[0].Seq
	}
	if limit == 0 {
		return after, nil
	}
	slices.Reverse(page.Events)
	for _, e := range page.Events {
		p.print(e)
	}
	return after, nil
}

// maxLogPayload is how many characters of a payload `gatehouse log` prints
// before it cuts, unless --full.
const maxLogPayload = 4096

// eventPrinter prints audit events, one a line: as JSON, or as columns
// with the payload whole (cut, with a note, past maxLogPayload unless
// full).
type eventPrinter struct {
	w      io.Writer
	asJSON bool
	full   bool
}

func (p eventPrinter) print(e audit.Event) {
	if p.asJSON {
		b, _ := json.Marshal(e)
		fmt.Fprintf(p.w, "%s\n", termsafe.JSON(b))
		return
	}
	sess := e.Session
	if sess == "" {
		sess = "-"
	}
	fmt.Fprintf(p.w, "%6d %s %-18s %-20s %s %s\n", e.Seq, clock(e.Time), termsafe.String(e.Kind), termsafe.String(e.Actor), termsafe.String(sess), clipPayload(e.Payload, p.full))
}

// clipPayload is the payload, escaped for the terminal, whole or cut at
// maxLogPayload characters with a note that says so: a cut is never
// silent. Escaping comes first, so a cut never leaves half an escape that
// a terminal would act on.
func clipPayload(payload []byte, full bool) string {
	r := []rune(termsafe.String(string(payload)))
	if full || len(r) <= maxLogPayload {
		return string(r)
	}
	left := len(r) - maxLogPayload
	return fmt.Sprintf("%s… [cut: %s more; gatehouse log --full or --json prints it whole]", string(r[:maxLogPayload]), plural.Count(left, "character", "characters"))
}
