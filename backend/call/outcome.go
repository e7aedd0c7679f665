package call

import (
	"errors"
	"strings"

	"github.com/gatehouse-dev/gatehouse/backend/approval"
	"github.com/gatehouse-dev/gatehouse/backend/call/effect"
	"github.com/gatehouse-dev/gatehouse/backend/policy"
	"github.com/gatehouse-dev/gatehouse/backend/session"
)

// How a call ended (session.End): worked out once, where the call ends
// (finish, fail, or a clearance for the agent's own tool), counted once in
// the session's counters and recorded on the call's last audit row, where
// `gatehouse sessions ID` and the UI read it.

// maxEndMessage bounds the person's message kept with an outcome.
const maxEndMessage = 1 << 10

// ended counts the call's outcome into its session, once, and returns it
// as the audit row carries it: the person's message redacted and bounded.
func (r *Runner) ended(c *InFlight, e session.End) session.End {
	e.Message, _ = bound(r.redact(e.Message), maxEndMessage)
	if c.counted.CompareAndSwap(false, true) {
		r.deps.Sessions.Count(c.Session(), session.CountEnd(e))
	}
	return e
}

// endOf is how a call that produced output ended.
func endOf(c *InFlight, out Output) session.End {
	if c.stopped {
		return session.End{Outcome: session.OutcomeStopped, By: session.ByKillSwitch}
	}
	e := session.End{Outcome: session.OutcomeOK}
	if eff := out.Effect; eff != nil {
		e.Held = eff.Held
		switch eff.Outcome {
		case effect.OutcomeDiscarded:
			return session.End{Outcome: session.OutcomeDiscarded, By: eff.By, Message: eff.Message, Held: eff.Held}
		case effect.OutcomeRolledBack:
			return session.End{Outcome: session.OutcomeRolledBack, By: eff.By, Message: eff.Message, Held: eff.Held}
		case effect.OutcomeApplied:
			e.Outcome = session.OutcomeApplied
		}
	}
	if out.Effect == nil && c.plan != nil && len(c.plan.Mutates) > 0 {
		// A write or an edit of its own paths: they are written.
		e.Outcome = session.OutcomeApplied
	}
	if c.Req.Tool != policy.ToolRunCommand || out.Structured["exit_code"] == nil {
		if out.IsError {
			e.Outcome = session.OutcomeFailed
		}
		return e
	}
	cr, err := CommandResultOf(Result{CallID: c.ID, Structured: out.Structured})
	switch {
	case err != nil:
		return e
	case cr.Killed:
		e.Killed = cr.KillReason
	case cr.Signal != "":
		e.Killed = "signal " + cr.Signal
	case cr.ExitCode != 0:
		code := cr.ExitCode
		e.ExitCode = &code
	default:
		return e
	}
	e.Applied = e.Outcome == session.OutcomeApplied
	e.Outcome = session.OutcomeFailed
	return e
}

// failEnd is how a call ended that produced no output: kind is its last
// audit row (tool.denied, tool.refused, tool.invalid, tool.error).
func failEnd(c *InFlight, kind string, err error) session.End {
	switch {
	case errors.Is(err, session.ErrKilled):
		return session.End{Outcome: session.OutcomeStopped, By: session.ByKillSwitch}
	case kind == "tool.denied" && c.denial != nil:
		return *c.denial
	case kind == "tool.denied":
		return session.End{Outcome: session.OutcomeDenied, By: session.ByGatehouse}
	case kind == "tool.error":
		return session.End{Outcome: session.OutcomeFailed}
	}
	return session.End{Outcome: session.OutcomeRefused}
}

// decider is who decided a card that was not allowed (session.By*).
func decider(d approval.Decision, err error) string {
	switch {
	case err != nil && errors.Is(err, session.ErrKilled):
		return session.ByKillSwitch
	case err != nil:
		return session.ByGatehouse
	case d.By == "human":
		return session.ByPerson
	case d.By == "system:timeout":
		return session.ByTimeout
	case d.By == "system:kill":
		return session.ByKillSwitch
	case d.By == "system:withdrawn":
		return session.ByAgent
	}
	return session.ByGatehouse
}

// refusedBy records on the effect who refused its changes, and the
// person's message with a deny.
func refusedBy(e *effect.Result, d approval.Decision, err error) {
	e.By = decider(d, err)
	if e.By == session.ByPerson {
		e.Message = strings.TrimSpace(d.Message)
	}
}
