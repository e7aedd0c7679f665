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
	"github.com/gatehouse-dev/gatehouse/backend/session"
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
	n := &runNet{r: r, c: c, o: NetworkOrigin{
		State: c.State, Call: c.ID, Binary: c.plan.Action.Binary, Cwd: c.plan.Action.Cwd, Via: c.Req.Via,
	}}
	if r.deps.Egress == nil {
		return sandbox.Network{Mode: sandbox.NetNone}, n, func() {}
	}
	run := r.deps.Egress.Open(ctx, egress.RunInfo{
		Session: c.Session(), Call: c.ID, Argv: c.plan.Action.Argv, Decider: n, Recorder: n,
	})
	return sandbox.Network{Mode: sandbox.NetProxy, Proxy: run}, n, run.Close
}

// NetworkOrigin is where a proxy's connections come from: one command's
// run, or a whole confined agent (ConfinedNetwork).
type NetworkOrigin struct {
	State *session.State
	// Call is the tool call that started the run ("" for a confined
	// agent, which is no call).
	Call        string
	Binary, Cwd string
	Via         Via
	// Preapproved, if set, names domains that need no card (a confined
	// agent's model API); network rules still decide first, so a domain
	// the person denied stays denied.
	Preapproved func(domain string) bool
}

// ConfinedNetwork decides and records for a confined agent's proxy: the
// same network rules, grants and cards as a command's, with the agent's
// model API let through.
func (r *Runner) ConfinedNetwork(o NetworkOrigin) interface {
	egress.Decider
	egress.Recorder
} {
	return &runNet{r: r, o: o}
}

// runNet decides and records for one run's proxy.
type runNet struct {
	r *Runner
	// c is the call whose command the proxy serves; nil for a confined
	// agent.
	c *InFlight
	o NetworkOrigin

	mu sync.Mutex
	// refused are the proxy's refusals as notes, each once: a command
	// often shows only a status code ("curl: (56) … 502"), or a host
	// port's closed connection, so its result says why.
	refused []string
}

// notes are the run's refusals as sentences for the agent.
func (n *runNet) notes() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.refused)
}

// refusalNote is the sentence for the agent about one refusal: a host
// port's says what is wrong with it; a domain's, how the person allows it.
func refusalNote(c egress.Connection, msg string) string {
	if c.Method == egress.MethodHost {
		return "Gatehouse could not connect the command to the service on this machine: " + msg
	}
	return msg + "; the person can allow a domain on the network card the next connection to it raises, or with a [[network]] rule"
}

// Decide implements egress.Decider: network rules and session grants
// first, then a network card. "This session" and "always" widen to the
// domain (and the port, unless it is 443 or 80).
func (n *runNet) Decide(ctx context.Context, q egress.Question) (egress.Answer, error) {
	r, st := n.r, n.o.State
	sess := st.Live.ID()
	home, _ := os.UserHomeDir()
	ps, err := policySession(st, home, r.sandboxed(), policy.ToolRunCommand)
	if err != nil {
		return egress.Answer{Reason: "this session's mode is not one Gatehouse knows"}, nil
	}
	dec := r.deps.Policy.Get().DecideNetwork(ps, q.Domain, q.Port)
	switch {
	case q.Listed && dec.Unruled():
		// The person listed the port in the config; plan mode still keeps
		// a command off a service it could change.
		dec = policy.Decision{Verdict: policy.Allow, Reason: "a service of this machine's loopback listed in [network] host_ports"}
	case (dec.Unruled() || dec.PlanRefusal()) && n.o.Preapproved != nil && n.o.Preapproved(q.Domain):
		// Not a card, so neither unattended mode's denial of one nor plan
		// mode's closed network keeps the agent from its own model.
		dec = policy.Decision{Verdict: policy.Allow, Reason: "the confined agent's own model API (its profile's domains)"}
	}
	n.record(ctx, "network.decision", "policy", map[string]any{
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
	who := path.Base(n.o.Binary)
	if q.Process != "" {
		who = q.Process
	}
	req := approval.Request{
		Kind: approval.KindNetwork, Session: sess, CallID: n.o.Call, Actor: st.Live.Actor(), Tool: policy.ToolNetwork,
		Domain: q.Domain, Port: q.Port, Binary: n.o.Binary,
		Reason:         fmt.Sprintf("%s wants to connect to %s", who, where),
		Rule:           dec.Rule.String(),
		AlwaysRule:     always.String(),
		Args:           map[string]any{"cwd": n.o.Cwd},
		Via:            string(n.o.Via),
		NoSessionScope: st.NoSessionGrants,
		Goal:           st.Live.Snapshot().Goal,
	}
	managed := dec.Rule.Source == policy.SourceManaged
	if managed {
		// The organisation asks every time: nothing wider to offer.
		req.Reason = dec.Reason + "; " + req.Reason
		req.AlwaysRule, req.NoSessionScope = "", true
	}
	for _, a := range q.Argv {
		req.Argv = append(req.Argv, r.redact(a))
	}
	d, err := n.ask(ctx, req)
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
	switch {
	case managed:
	case d.Scope == approval.ScopeSession:
		if !st.NoSessionGrants {
			st.AddGrant(policy.NetworkRule(q.Domain, q.Port, policy.ScopeSession))
		}
	case d.Scope == approval.ScopeAlways:
		n.writeAlways(ctx, always)
	}
	return egress.Answer{Allow: true}, nil
}

// ask files the card: as the call's, or the confined agent's.
func (n *runNet) ask(ctx context.Context, req approval.Request) (approval.Decision, error) {
	if n.c != nil {
		return n.r.Ask(ctx, n.c, req)
	}
	n.r.deps.Sessions.Count(req.Session, session.Counters{Asked: 1})
	d, err := n.r.deps.Approvals.Ask(ctx, req)
	if err != nil {
		return d, fmt.Errorf("ask the person: %w", err)
	}
	return d, nil
}

// record queues an audit row under the session (and call, if any).
func (n *runNet) record(ctx context.Context, kind, actor string, payload map[string]any) {
	n.r.deps.Audit.Queue(context.WithoutCancel(ctx), Row{Kind: kind, Actor: actor, Session: n.o.State.Live.ID(), Call: n.o.Call, Payload: payload})
}

// writeAlways appends the rule to the person's policy file and reloads
// it; if that fails the session still gets it, and the audit says so.
func (n *runNet) writeAlways(ctx context.Context, rule policy.Rule) {
	r, st := n.r, n.o.State
	if err := policy.AppendRule(r.deps.Policy.UserPath, rule); err != nil {
		r.deps.Logger.Error("write always-allow network rule", "err", err)
		n.record(ctx, "policy.rule_failed", "system", map[string]any{"error": err.Error()})
		if !st.NoSessionGrants {
			st.AddGrant(policy.NetworkRule(rule.Domains[0], firstPort(rule), policy.ScopeSession))
		}
		return
	}
	if err := r.deps.Policy.Reload(); err != nil {
		r.deps.Logger.Error("reload policy", "err", err)
	}
	n.record(ctx, "policy.rule_added", "human", map[string]any{"rule": rule.String(), "file": r.deps.Policy.UserPath})
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
	if c.Process != "" {
		payload["process"] = n.r.redact(c.Process)
	}
	if c.Refused != "" {
		msg := n.r.redact(c.Refused)
		payload["refused"] = msg
		note := refusalNote(c, msg)
		n.mu.Lock()
		if !slices.Contains(n.refused, note) && len(n.refused) < maxRefusalNotes {
			n.refused = append(n.refused, note)
		}
		n.mu.Unlock()
	}
	n.record(ctx, "network.connection", "system", payload)
}

// maxRefusalNotes bounds the refusals one result lists.
const maxRefusalNotes = 5
