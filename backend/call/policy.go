package call

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/approval"
	"github.com/gatehouse-dev/gatehouse/backend/policy"
	"github.com/gatehouse-dev/gatehouse/backend/session"
)

// PolicyHolder is the effective policy, reloaded when "always allow" writes
// a rule or the person edits the file.
type PolicyHolder struct {
	UserPath   string
	Workspaces []string

	mu sync.RWMutex
	p  *policy.Policy
	// checked is when Get last looked at the managed file (Unix ns).
	checked atomic.Int64
}

// managedRecheck is how often Get looks for a changed managed policy, so a
// fixed (or newly installed) organisation file applies without a restart.
const managedRecheck = 2 * time.Second

// LoadPolicy reads the user file and workspace files.
func LoadPolicy(userPath string, workspaces []string) (*PolicyHolder, error) {
	h := &PolicyHolder{UserPath: userPath, Workspaces: workspaces}
	return h, h.Reload()
}

// Reload re-reads the policy files; on error the old policy stays.
func (h *PolicyHolder) Reload() error {
	h.mu.RLock()
	ws := slices.Clone(h.Workspaces)
	h.mu.RUnlock()
	p, err := policy.Load(h.UserPath, ws)
	if err != nil {
		return err
	}
	h.mu.Lock()
	h.p = p
	h.mu.Unlock()
	return nil
}

// AddWorkspaces reads the policy files of workspaces not seen before (a
// new session's project), before its first call. A workspace's file can
// only tighten, so one that does not read is an error the session must
// not start without.
func (h *PolicyHolder) AddWorkspaces(ws []string) error {
	h.mu.Lock()
	before := slices.Clone(h.Workspaces)
	for _, w := range ws {
		if !slices.Contains(h.Workspaces, w) {
			h.Workspaces = append(h.Workspaces, w)
		}
	}
	added := len(h.Workspaces) > len(before)
	h.mu.Unlock()
	if !added {
		return nil
	}
	if err := h.Reload(); err != nil {
		h.mu.Lock()
		h.Workspaces = before
		h.mu.Unlock()
		return err
	}
	return nil
}

// Get returns the current policy, reloaded first when the managed policy
// file changed (looked at no more than every managedRecheck).
func (h *PolicyHolder) Get() *policy.Policy {
	h.mu.RLock()
	p := h.p
	h.mu.RUnlock()
	now := time.Now().UnixNano()
	if last := h.checked.Load(); now-last >= int64(managedRecheck) && h.checked.CompareAndSwap(last, now) && p.ManagedChanged() {
		// A user file that no longer parses keeps the old policy, as
		// Reload always does; the managed part of it is never skipped
		// because Load does not fail on it.
		_ = h.Reload()
		h.mu.RLock()
		p = h.p
		h.mu.RUnlock()
	}
	return p
}

// authorize applies policy and, for "ask", waits for the person.
func (r *Runner) authorize(ctx context.Context, c *InFlight) error {
	sess, plan := c.Session(), c.plan
	home, _ := os.UserHomeDir()
	ps, err := policySession(c.State, home, r.sandboxed(), plan.Action.Tool)
	if err != nil {
		return err
	}
	dec := r.deps.Policy.Get().Decide(ps, plan.Action)
	c.readOnly = dec.ReadOnly
	risks := make([]approval.Risk, 0, len(dec.Risks))
	for _, k := range dec.Risks {
		risks = append(risks, approval.Risk{Kind: string(k.Kind), Detail: k.Detail})
	}
	decision := map[string]any{
		"tool": c.Req.Tool, "verdict": dec.Verdict.String(), "reason": dec.Reason, "rule": dec.Rule, "risks": risks,
	}
	if !c.held.hold("policy.decision", "policy", decision) {
		r.record(ctx, c, "policy.decision", "policy", decision)
	}
	switch dec.Verdict {
	case policy.Allow:
		r.deps.Sessions.Count(sess, session.Counters{Allowed: 1})
		return nil
	case policy.Deny:
		c.denial = &session.End{Outcome: session.OutcomeDenied, By: session.ByPolicy}
		return Errorf("Denied by Gatehouse policy: %s (%s). Do not retry the same call; ask the person if it is needed.", dec.Reason, dec.Rule)
	}
	// The approval card's rows follow the call's own.
	r.flushHeld(ctx, c)
	risks = append(risks, r.notRestorable(ctx, c)...)
	always := policy.RuleFromCall(plan.Action, policy.ScopeAlways)
	grant := policy.RuleFromCall(plan.Action, policy.ScopeSession)
	req := approval.Request{
		Kind: approval.KindCall, Session: sess, CallID: c.ID, Actor: c.actor(), Tool: c.Req.Tool,
		Binary: plan.Action.Binary, Paths: plan.Action.Paths, URL: r.redact(plan.Action.URL),
		Diff: r.redact(plan.Diff), Reason: dec.Reason, Rule: dec.Rule.String(), Risks: risks,
		AlwaysRule: always.String(), SessionRule: grant.String(), Cwd: plan.Action.Cwd, Args: plan.Summary, Via: string(c.Req.Via), Native: c.Req.Native,
		NoSessionScope: c.State.NoSessionGrants, Goal: c.State.Live.Snapshot().Goal,
	}
	for _, a := range plan.Action.Argv {
		req.Argv = append(req.Argv, r.redact(a))
	}
	if dec.Rule.Source == policy.SourceManaged {
		// The organisation asks for this call every time: a session or
		// "always" grant would loosen nothing, so none is offered.
		req.Findings = append(req.Findings, policy.OrgSays+": only this call can be allowed; your session and always rules do not loosen it")
		req.AlwaysRule, req.SessionRule, req.NoSessionScope = "", "", true
	}
	if len(dec.SandboxHides) > 0 {
		// Allow runs the command but cannot show it these, and a rule
		// naming them would allow nothing: say so, and offer no rule.
		req.Findings = append(req.Findings, "the sandbox hides "+strings.Join(dec.SandboxHides, ", ")+" from every command whatever you choose: Allow runs the command without it, and exposes nothing")
		req.AlwaysRule, req.SessionRule = "", ""
	}
	if c.Req.Via == ViaHook && plan.Action.Tool == policy.ToolReadFile {
		// The hook points the agent's own read at a redacted copy when the
		// file holds a secret (hookserver's readAnswer).
		req.Findings = append(req.Findings, "what the model will see: the file with private keys and tokens redacted, as Gatehouse's read_file shows it, whatever you choose")
	}
	d, err := r.Ask(ctx, c, req)
	if err != nil {
		c.denial = &session.End{Outcome: session.OutcomeDenied, By: decider(d, err)}
		return err
	}
	if !d.Allow {
		c.denial = &session.End{Outcome: session.OutcomeDenied, By: decider(d, nil)}
		if c.denial.By == session.ByPerson {
			c.denial.Message = d.Message
		}
		return denial(d)
	}
	switch d.Scope {
	case approval.ScopeSession:
		if !c.State.NoSessionGrants {
			c.State.AddGrant(grant)
		}
	case approval.ScopeAlways:
		if dec.Rule.Source == policy.SourceManaged {
			break // see above: nothing to widen
		}
		if d.Rule != "" {
			// The person edited the rule on the card (checked by the API).
			if edited, err := policy.ParseRule(d.Rule); err == nil {
				always = edited
			}
		}
		if err := policy.AppendRule(r.deps.Policy.UserPath, always); err != nil {
			r.deps.Logger.Error("write always-allow rule", "err", err)
			r.record(ctx, c, "policy.rule_failed", "system", map[string]any{"error": err.Error()})
		} else {
			if err := r.deps.Policy.Reload(); err != nil {
				r.deps.Logger.Error("reload policy", "err", err)
			}
			r.record(ctx, c, "policy.rule_added", "human", map[string]any{"rule": always.String(), "file": r.deps.Policy.UserPath})
		}
	}
	return nil
}

// denial is what the agent reads when a card was not allowed.
func denial(d approval.Decision) error {
	switch {
	case d.By == "human" && d.Message != "":
		return Errorf("The person denied this call: %s", d.Message)
	case d.By == "human":
		return Errorf("The person denied this call.")
	}
	return Errorf("Not approved: %s.", d.Message)
}

// Ask files a card and waits for the person. While it waits, the
// transport's progress callback keeps the client's request alive.
func (r *Runner) Ask(ctx context.Context, c *InFlight, req approval.Request) (approval.Decision, error) {
	if c.asked.CompareAndSwap(false, true) {
		// However many cards a call raises, it asked once.
		r.deps.Sessions.Count(c.Session(), session.Counters{Asked: 1})
	}
	if p := c.Req.Progress; p != nil {
		stop := keepAlive(ctx, waitingMessage(req), p)
		defer stop()
	}
	d, err := r.deps.Approvals.Ask(ctx, req)
	if err != nil {
		return d, fmt.Errorf("ask the person: %w", err)
	}
	return d, nil
}

// waitingMessage is the progress text a client may show while a card waits.
func waitingMessage(req approval.Request) string {
	if req.Kind == approval.KindQuestion {
		return "waiting for the person to answer in Gatehouse"
	}
	return "waiting for the person to approve this call in Gatehouse"
}

// keepAliveEvery is how often a waiting call reports progress: well inside
// the shortest client request timeout seen (60 s).
const keepAliveEvery = 15 * time.Second

// keepAlive calls progress now and then until stop or ctx ends.
func keepAlive(ctx context.Context, msg string, progress func(string)) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(keepAliveEvery)
		defer t.Stop()
		progress(msg)
		for {
			select {
			case <-t.C:
				progress(msg)
			case <-done:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return func() { close(done) }
}

// AllowRedirect clears a fetch's redirect to another host as policy would
// clear a fetch of that host itself; the person is not asked, so a host
// that needs a card is refused with a sentence saying how to get one.
func (r *Runner) AllowRedirect(ctx context.Context, c *InFlight, host string) error {
	home, _ := os.UserHomeDir()
	ps, err := policySession(c.State, home, r.sandboxed(), policy.ToolFetchURL)
	if err != nil {
		return err
	}
	dec := r.deps.Policy.Get().Decide(ps, policy.Action{Tool: policy.ToolFetchURL, URL: "https://" + host + "/"})
	if dec.Verdict != policy.Allow {
		return fmt.Errorf("redirect to %s is not allowed by policy (%s); fetch that URL directly so the person can decide", host, dec.Reason)
	}
	return nil
}
