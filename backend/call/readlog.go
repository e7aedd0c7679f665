package call

import (
	"context"
	"sync"
)

// A local read that policy allows outright leaves one audit row, tool.result
// carrying its arguments and the decision, instead of tool.call,
// tool.validated, policy.decision and tool.result. Reads are the bulk of an
// agent's calls and have no effect before their result, so the single row
// says everything the four did, at a quarter of the audit cost. Any other
// path (invalid arguments, deny, ask, a budget card, an error) first writes
// the held rows in their usual order, so those timelines are unchanged.

type heldRow struct {
	kind, actor string
	payload     map[string]any
}

// callLog holds a local read's early rows until its end.
type callLog struct {
	mu       sync.Mutex
	rows     []heldRow
	decision map[string]any // the policy.decision payload, once decided
	done     bool           // flushed or merged: later rows are written directly
	// expect is the read's announcement to the audit writer (see
	// Audit.Expect); it is withdrawn once the call is no longer a quick read.
	expect Expectation
}

// hold keeps a row back; false when the log no longer holds (the caller
// writes the row itself).
func (l *callLog) hold(kind, actor string, payload map[string]any) bool {
	if l == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done {
		return false
	}
	l.rows = append(l.rows, heldRow{kind, actor, payload})
	if kind == "policy.decision" {
		l.decision = payload
	}
	return true
}

// flushHeld writes the rows the call's log holds, in order, and stops
// holding. Every other row of the call goes through here first, so the
// timeline keeps its order.
func (r *Runner) flushHeld(ctx context.Context, c *InFlight) {
	l := c.held
	if l == nil {
		return
	}
	l.expect.Settle()
	l.mu.Lock()
	rows := l.rows
	l.rows, l.done = nil, true
	l.mu.Unlock()
	for _, h := range rows {
		r.queue(ctx, c, h.kind, h.actor, h.payload)
	}
}

// merge hands back the held rows for the single result row when the call
// went straight through: its arguments and an allow decision. ok is false
// (and nothing is taken) otherwise.
func (l *callLog) merge() (call, decision map[string]any, actor string, ok bool) {
	if l == nil {
		return nil, nil, "", false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done || l.decision == nil || l.decision["verdict"] != "allow" || len(l.rows) == 0 || l.rows[0].kind != "tool.call" {
		return nil, nil, "", false
	}
	call, actor = l.rows[0].payload, l.rows[0].actor
	decision = l.decision
	l.rows, l.done = nil, true
	return call, decision, actor, true
}
