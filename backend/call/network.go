package call

import (
	"context"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/gatehouse-dev/gatehouse/backend/approval"
	"github.com/gatehouse-dev/gatehouse/backend/egress"
	"github.com/gatehouse-dev/gatehouse/backend/policy"
	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// Egress opens the egress proxy of one run; *egress.Proxy is one. A nil
// Deps.Egress leaves commands without any network.
type Egress interface {
	Open(ctx context.Context, info egress.RunInfo) *egress.Run
}

// runNetwork is the network of one run_command: its own proxy run, which
// asks policy (and the person) per domain and audits every connection.
// release closes the proxy once the run is over. The sandbox backend
// points the run's proxy variables at it.
func (r *Runner) runNetwork(ctx context.Context, c *InFlight) (sandbox.Network, *runNet, func()) {
	n := &runNet{r: r, c: c}
	if r.deps.Egress == nil {
		return sandbox.Network{Mode: sandbox.NetNone}, n, func() {}
	}
	run := r.deps.Egress.Open(ctx, egress.RunInfo{
		Session: c.Session(), Call: c.ID, Argv: c.plan.Action.Argv, Decider: n, Recorder: n,
	})
	return sandbox.Network{Mode: sandbox.NetProxy, Proxy: run}, n, run.Close
}

// runNet decides and records for one run's proxy.
type runNet struct {
	r *Runner
	c *InFlight

	mu sync.Mutex
	// refused are the proxy's refusals, each once: a command often shows
	// only a status code ("curl: (56) … 502"), so its result says why.
	refused []string
}

// notes are the run's refusals as sentences for the agent.
func (n *runNet) notes() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make([]string, 0, len(n.refused))
	for _, msg := range n.refused {
		out = append(out, msg+"; the person can allow a domain on the network card the next connection to it raises, or with a [[network]] rule")
	}
	return out
}

// Decide implements egress.Decider: network rules and session grants
// first, then a network card. "This session" and "always" widen to the
// domain (and the port, unless it is 443 or 80).
func (n *runNet) Decide(ctx context.Context, q egress.Question) (egress.Answer, error) {
	r, c, st, sess := n.r, n.c, n.c.State, n.c.Session()
	home, _ := os.UserHomeDir()
	ps, err := policySession(st, home, r.sandboxed(), policy.ToolRunCommand)
	if err != nil {
		return egress.Answer{Reason: "this session's mode is not one Gatehouse knows"}, nil
	}
	dec := r.deps.Policy.Get().DecideNetwork(ps, q.Domain, q.Port)
	r.queue(ctx, c, "network.decision", "policy", map[string]any{
		"domain": q.Domain, "port": q.Port, "verdict": dec.Verdict.String(), "reason": dec.Reason, "rule": dec.Rule,
	})
	where := fmt.Sprintf("%s:%d", q.Domain, q.Port)
	switch dec.Verdict {
	case policy.Allow:
		return egress.Answer{Allow: true}, nil
	case policy.Deny:
		return egress.Answer{Reason: dec.Reason}, nil
	}
	always := policy.NetworkRule(q.Domain, q.Port, policy.ScopeAlways)
	req := approval.Request{
		Kind: approval.KindNetwork, Session: sess, CallID: c.ID, Actor: c.actor(), Tool: policy.ToolNetwork,
		Domain: q.Domain, Port: q.Port, Binary: c.plan.Action.Binary,
		Reason:         fmt.Sprintf("%s wants to connect to %s", path.Base(c.plan.Action.Binary), where),
		Rule:           dec.Rule.String(),
		AlwaysRule:     always.String(),
		Args:           map[string]any{"cwd": c.plan.Action.Cwd},
		Via:            string(c.Req.Via),
		NoSessionScope: st.NoSessionGrants,
		Goal:           st.Live.Snapshot().Goal,
	}
	for _, a := range q.Argv {
		req.Argv = append(req.Argv, r.redact(a))
	}
	d, err := r.Ask(ctx, c, req)
	if err != nil {
		return egress.Answer{}, fmt.Errorf("ask about %s: %w", where, err)
	}
	if !d.Allow {
		if d.By == "human" {
			msg := "the person denied it"
			if d.Message != "" {
				msg += ": " + strings.TrimSuffix(d.Message, ".")
			}
			return egress.Answer{Reason: msg}, nil
		}
		return egress.Answer{Reason: "not approved: " + d.Message}, nil
	}
	switch d.Scope {
	case approval.ScopeSession:
		if !st.NoSessionGrants {
			st.AddGrant(policy.NetworkRule(q.Domain, q.Port, policy.ScopeSession))
		}
	case approval.ScopeAlways:
		n.writeAlways(ctx, always)
	}
	return egress.Answer{Allow: true}, nil
}

// writeAlways appends the rule to the person's policy file and reloads
// it; if that fails the session still gets it, and the audit says so.
func (n *runNet) writeAlways(ctx context.Context, rule policy.Rule) {
	r, c := n.r, n.c
	if err := policy.AppendRule(r.deps.Policy.UserPath, rule); err != nil {
		r.deps.Logger.Error("write always-allow network rule", "err", err)
		r.queue(ctx, c, "policy.rule_failed", "system", map[string]any{"error": err.Error()})
		if !c.State.NoSessionGrants {
			c.State.AddGrant(policy.NetworkRule(rule.Domains[0], firstPort(rule), policy.ScopeSession))
		}
		return
	}
	if err := r.deps.Policy.Reload(); err != nil {
		r.deps.Logger.Error("reload policy", "err", err)
	}
	r.queue(ctx, c, "policy.rule_added", "human", map[string]any{"rule": rule.String(), "file": r.deps.Policy.UserPath})
}

func firstPort(r policy.Rule) int {
	if len(r.Ports) > 0 {
		return r.Ports[0]
	}
	return 443
}

// Connection implements egress.Recorder: one audit row per connection.
func (n *runNet) Connection(ctx context.Context, c egress.Connection) {
	payload := map[string]any{
		"domain": c.Domain, "port": c.Port, "method": c.Method, "addr": c.Addr,
		"bytes_up": c.BytesUp, "bytes_down": c.BytesDown, "duration_ms": c.Duration.Milliseconds(),
	}
	if c.Refused != "" {
		msg := n.r.redact(c.Refused)
		payload["refused"] = msg
		n.mu.Lock()
		if !slices.Contains(n.refused, msg) && len(n.refused) < maxRefusalNotes {
			n.refused = append(n.refused, msg)
		}
		n.mu.Unlock()
	}
	n.r.queue(ctx, n.c, "network.connection", "system", payload)
}

// maxRefusalNotes bounds the refusals one result lists.
const maxRefusalNotes = 5
