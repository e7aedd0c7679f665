package call

import (
	"context"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/agentusage"
	"github.com/gatehouse-dev/gatehouse/backend/approval"
)

// checkLimits runs before each call. When a budget is spent it asks the
// person (a "limit" card) to extend it; a deny or timeout ends the session.
func (r *Runner) checkLimits(ctx context.Context, c *InFlight) error {
	st := c.State
	// One card at a time per session, however many calls race here.
	h := heldBy(st)
	h.limitMu.Lock()
	defer h.limitMu.Unlock()
	info := st.Live.Snapshot()
	what := st.Limits().Spent(info, time.Now())
	var tokens agentusage.Usage
	if what == "" && st.Limits().Tokens > 0 && r.deps.Usage != nil {
		tokens = r.deps.Usage(info.Run)
		what = st.Limits().TokensSpent(tokens.Total(), tokens.Known)
	}
	if what == "" {
		return nil
	}
	sess := st.Live.ID()
	reached := map[string]any{"limit": what, "calls": info.Calls, "output_bytes": info.OutputBytes, "exec_ms": info.CPUMillis}
	if tokens.Known {
		reached["tokens"] = tokens.Total()
	}
	r.record(ctx, c, "limit.reached", "system", reached)
	d, err := r.Ask(ctx, c, approval.Request{
		Kind: approval.KindLimit, Session: sess, CallID: c.ID, Actor: st.Live.Actor(), Tool: "limit",
		Reason: "this session used its budget of " + what + "; allow to double the budget, deny to end the session",
	})
	if err != nil {
		return err
	}
	if !d.Allow {
		r.deps.Sessions.End(context.WithoutCancel(ctx), sess, "budget of "+what+" reached")
		return Errorf("This session reached its budget of %s and the person ended it.", what)
	}
	st.ExtendSpent(info, time.Now())
	if tokens.Known {
		st.ExtendTokens(tokens.Total())
	}
	r.record(ctx, c, "limit.extended", "human", map[string]any{"limit": what})
	return nil
}
