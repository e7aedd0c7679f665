package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gatehouse-dev/gatehouse/app/cli/termsafe"
	"github.com/gatehouse-dev/gatehouse/app/client"
	"github.com/gatehouse-dev/gatehouse/backend/exposure"
	"github.com/gatehouse-dev/gatehouse/backend/plural"
)

// `gatehouse public` is the one verb that lets another device decide
// cards: start, stop and status each live in their own file.
func init() {
	register(func(g *Globals) *cobra.Command {
		cmd := &cobra.Command{
			Use:   "public",
			Short: "Decide cards from another device: an expiring approvals page behind a one-time link",
			Long: `public start opens an exposure: a listener of its own that serves only a
phone-sized approvals page (Allow once / Deny) behind a link that works once.
It ends after --for (default 1h, at most 24h), when you run public stop, or
when the daemon stops. public status lists exposures and what Gatehouse sees
but does not control: relayed requests and unknown programs connected to it.`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
		}
		cmd.AddCommand(publicStartCommand(g), publicStopCommand(g), publicStatusCommand(g))
		return cmd
	})
}

// exposuresReply is GET /api/v1/exposures.
type exposuresReply struct {
	Exposures []exposure.Info `json:"exposures"`
	Suspected exposure.Seen   `json:"suspected"`
}

func getExposures(ctx context.Context, c *client.Client) (exposuresReply, error) {
	var out exposuresReply
	err := c.Get(ctx, "/api/v1/exposures", nil, &out)
	return out, err
}

// printExposure is one exposure's lines, without its token.
func printExposure(w io.Writer, x exposure.Info) {
	left := time.Until(x.Expires).Round(time.Second)
	fmt.Fprintf(w, "Exposure %s on %s, open until %s (%s left).\n", x.ID, x.Listen, x.Expires.Local().Format("15:04:05 MST"), left)
	fmt.Fprintf(w, "  page:        %s\n", termsafe.String(x.URL))
	if x.TLS {
		fmt.Fprintf(w, "  certificate: SHA-256 %s (Gatehouse's own; check it on the device)\n", x.Fingerprint)
	}
	if t := x.Tunnel; t != nil {
		fmt.Fprintf(w, "  tunnel:      %s (pid %d)", termsafe.String(strings.Join(t.Command, " ")), t.PID)
		if t.URL != "" {
			fmt.Fprintf(w, " at %s", termsafe.String(t.URL))
		}
		fmt.Fprintln(w)
		if t.Note != "" {
			fmt.Fprintf(w, "               %s\n", termsafe.String(t.Note))
		}
	}
	fmt.Fprintf(w, "  used by:     %s, %s\n", plural.Count(x.Devices, "device", "devices"), plural.Count(x.Decisions, "decision", "decisions"))
}

// printSuspected says what reaches the daemon that Gatehouse does not
// control; nothing when all is quiet.
func printSuspected(w io.Writer, s exposure.Seen) {
	if r := s.Relayed; r != nil {
		fmt.Fprintf(w, "Warning: %s relayed by a proxy or tunnel reached the daemon's port and refused; the last at %s, %s %s from %s, carrying %s.\n",
			plural.Count(r.Count, "request", "requests"), r.At.Local().Format("15:04:05 MST"), r.Method, termsafe.String(r.Path), r.From, strings.Join(r.Headers, ", "))
	}
	for _, p := range s.Processes {
		name := p.Command
		if name == "" {
			name = "a process Gatehouse cannot see (another user's?)"
		}
		fmt.Fprintf(w, "Warning: %s (pid %d, %s) holds a connection to the daemon's port from %s; Gatehouse did not start it. If it is a tunnel or relay (socat, ssh -R), it exposes the daemon beyond its control.\n",
			termsafe.String(name), p.PID, termsafe.String(p.Exe), p.From)
	}
}
