package call

import (
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/approval"
	"github.com/gatehouse-dev/gatehouse/backend/call/effect"
	"github.com/gatehouse-dev/gatehouse/backend/policy"
)

// effectCard is the approval for a held change set: the call's header
// here, the change set's body from effect.Card. staged says whether the
// workspace is still untouched (a staged run, begun at since) or already
// changed (a run checked after the fact, which a deny rolls back).
func (r *Runner) effectCard(c *InFlight, cs effect.ChangeSets, dec policy.EffectDecision, staged bool, since time.Time) approval.Request {
	req := approval.Request{
		Session: c.Session(), CallID: c.ID, Actor: c.actor(), Tool: c.Req.Tool,
		Binary: c.plan.Action.Binary, Cwd: c.plan.Action.Cwd,
		Via: string(c.Req.Via), Native: c.Req.Native, Goal: c.State.Live.Snapshot().Goal,
	}
	for _, a := range c.plan.Action.Argv {
		req.Argv = append(req.Argv, r.redact(a))
	}
	return effect.Card(req, cs, dec, staged, since, r.redact)
}
