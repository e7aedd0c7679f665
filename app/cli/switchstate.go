package cli

import (
	"context"
	"fmt"
	"net/url"

	"github.com/gatehouse-dev/gatehouse/app/client"
	"github.com/gatehouse-dev/gatehouse/backend/plural"
	"github.com/gatehouse-dev/gatehouse/backend/session"
)

// switchLine says what the pause or the kill switch is doing to calls, or
// "" when neither is on. A failure to ask is not worth failing over: the
// approvals list is what was asked for.
func switchLine(ctx context.Context, c *client.Client) string {
	var st struct {
		State session.Switches `json:"state"`
	}
	if err := c.Get(ctx, "/api/v1/status", nil, &st); err != nil {
		return ""
	}
	switch {
	case st.State.Killed:
		return "All agents are stopped (kill switch): new calls are refused until you run `gatehouse resume`."
	case st.State.Paused:
		return fmt.Sprintf("Gatehouse is paused: %s waiting on the pause, not on you; `gatehouse resume` releases them.",
			plural.Count(st.State.Waiting, "call is", "calls are"))
	}
	return ""
}

// clientNames maps live sessions to the names their agents gave.
func clientNames(ctx context.Context, c *client.Client) map[string]string {
	var out struct {
		Sessions []session.Info `json:"sessions"`
	}
	names := map[string]string{}
	if err := c.Get(ctx, "/api/v1/sessions", url.Values{"status": {string(session.Active)}, "limit": {"1000"}}, &out); err != nil {
		return names
	}
	for _, s := range out.Sessions {
		names[s.ID] = s.ClientName
	}
	return names
}
