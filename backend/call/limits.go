package call

import (
	"context"
	"fmt"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/approval"
	"github.com/gatehouse-dev/gatehouse/backend/session"
)

// Limits are a session's budgets: the cost circuit breaker. Zero means no
// limit for that budget.
type Limits struct {
	MaxCalls    int64
	Wall        time.Duration
	ExecTime    time.Duration // total time commands ran
	OutputBytes int64
}

// DefaultLimits stop a runaway agent long before it costs much, yet rarely
// interrupt real work.
func DefaultLimits() Limits {
	return Limits{MaxCalls: 5000, Wall: 12 * time.Hour, ExecTime: 2 * time.Hour, OutputBytes: 1 << 30}
}

// checkLimits runs before each call. When a budget is spent it asks the
// person (a "limit" card) to extend it; a deny or timeout ends the session.
func (r *Runner) checkLimits(ctx context.Context, c *InFlight) error {
	st := c.State
	// One card at a time per session, however many calls race here.
	st.limitMu.Lock()
	defer st.limitMu.Unlock()
	info := st.Live.Snapshot()
	st.mu.Lock()
	lim := st.limits
	st.mu.Unlock()
	var what string
	switch {
	case lim.MaxCalls > 0 && info.Calls > lim.MaxCalls:
		what = fmt.Sprintf("%d tool calls", lim.MaxCalls)
	case lim.Wall > 0 && time.Since(info.StartedAt) > lim.Wall:
		what = fmt.Sprintf("%s of wall-clock time", lim.Wall)
	case lim.ExecTime > 0 && time.Duration(info.CPUMillis)*time.Millisecond > lim.ExecTime:
		what = fmt.Sprintf("%s of command run time", lim.ExecTime)
	case lim.OutputBytes > 0 && info.OutputBytes > lim.OutputBytes:
		what = fmt.Sprintf("%d MiB of output", lim.OutputBytes>>20)
	default:
		return nil
	}
	sess := st.Live.ID()
	r.record(ctx, c, "limit.reached", "system", map[string]any{"limit": what, "calls": info.Calls, "output_bytes": info.OutputBytes, "exec_ms": info.CPUMillis})
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
	st.mu.Lock()
	st.limits = doubled(st.limits, info)
	st.mu.Unlock()
	r.record(ctx, c, "limit.extended", "human", map[string]any{"limit": what})
	return nil
}

// doubled extends every spent budget to twice what is used now.
func doubled(l Limits, info session.Info) Limits {
	if l.MaxCalls > 0 && info.Calls >= l.MaxCalls {
		l.MaxCalls = 2 * info.Calls
	}
	if l.Wall > 0 && time.Since(info.StartedAt) >= l.Wall {
		l.Wall = 2 * time.Since(info.StartedAt)
	}
	if used := time.Duration(info.CPUMillis) * time.Millisecond; l.ExecTime > 0 && used >= l.ExecTime {
		l.ExecTime = 2 * used
	}
	if l.OutputBytes > 0 && info.OutputBytes >= l.OutputBytes {
		l.OutputBytes = 2 * info.OutputBytes
	}
	return l
}

// Limits returns the session's current budgets.
func (s *State) Limits() Limits {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.limits
}

// SetLimits changes the session's budgets live (the person, from the UI).
func (s *State) SetLimits(l Limits) {
	s.mu.Lock()
	s.limits = l
	s.mu.Unlock()
}
