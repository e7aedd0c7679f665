package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/gatehouse-dev/gatehouse/backend/audit"
)

func init() {
	register(func(g *Globals) *cobra.Command {
		var follow, asJSON bool
		var sess, kind, actor string
		var limit int
		cmd := &cobra.Command{
			Use:   "log",
			Short: "Show the audit timeline (-f to follow it live)",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				c, err := client(g)
				if err != nil {
					return err
				}
				q := url.Values{}
				for k, v := range map[string]string{"session": sess, "kind": kind, "actor": actor} {
					if v != "" {
						q.Set(k, v)
					}
				}
				last := url.Values{"order": {"desc"}, "limit": {strconv.Itoa(limit)}}
				for k, v := range q {
					last[k] = v
				}
				var page struct {
					Events []audit.Event `json:"events"`
				}
				if err := c.Get(cmd.Context(), "/api/v1/events", last, &page); err != nil {
					return apiErr(err)
				}
				slices.Reverse(page.Events)
				var after int64
				for _, e := range page.Events {
					printEvent(g.Stdout, e, asJSON)
					after = e.Seq
				}
				if !follow {
					return nil
				}
				q.Set("after", strconv.FormatInt(after, 10))
				err = c.Stream(cmd.Context(), "/api/v1/events/stream", q, func(event, _ string, data []byte) error {
					if event != "audit" {
						if event == "dropped" {
							return fmt.Errorf("the daemon dropped this stream: %s", data)
						}
						return nil
					}
					var e audit.Event
					if err := json.Unmarshal(data, &e); err != nil {
						return err
					}
					printEvent(g.Stdout, e, asJSON)
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
		f.StringVar(&sess, "session", "", "only this session")
		f.StringVar(&kind, "kind", "", `only this kind ("tool." for a whole family)`)
		f.StringVar(&actor, "actor", "", "only this actor (human, policy, system, agent:NAME)")
		f.IntVarP(&limit, "limit", "n", 50, "how many past events to show first")
		return cmd
	})
}

func printEvent(w io.Writer, e audit.Event, asJSON bool) {
	if asJSON {
		b, _ := json.Marshal(e)
		fmt.Fprintf(w, "%s\n", b)
		return
	}
	sess := e.Session
	if sess == "" {
		sess = "-"
	}
	payload := string(e.Payload)
	if len(payload) > 200 {
		payload = payload[:200] + "…"
	}
	fmt.Fprintf(w, "%6d %s %-18s %-20s %s %s\n", e.Seq, e.Time.Local().Format("15:04:05.000"), e.Kind, e.Actor, sess, payload)
}
