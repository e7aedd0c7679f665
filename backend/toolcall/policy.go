package toolcall

import (
	"context"
	"fmt"
	"os"
	"sync"

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
}

// LoadPolicy reads the user file and workspace files.
func LoadPolicy(userPath string, workspaces []string) (*PolicyHolder, error) {
	h := &PolicyHolder{UserPath: userPath, Workspaces: workspaces}
	return h, h.Reload()
}

// Reload re-reads the policy files; on error the old policy stays.
func (h *PolicyHolder) Reload() error {
	p, err := policy.Load(h.UserPath, h.Workspaces)
	if err != nil {
		return err
	}
	h.mu.Lock()
	h.p = p
	h.mu.Unlock()
	return nil
}

// Get returns the current policy.
func (h *PolicyHolder) Get() *policy.Policy {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.p
}

// authorize applies policy and, for "ask", waits for the person.
func (r *Runner) authorize(ctx context.Context, st *State, t *Tool, plan *Plan, callID string) error {
	sess := st.Live.ID()
	home, _ := os.UserHomeDir()
	dec := r.deps.Policy.Get().Decide(st.policySession(home), plan.Call)
	risks := make([]approval.Risk, 0, len(dec.Risks))
	for _, k := range dec.Risks {
		risks = append(risks, approval.Risk{Kind: string(k.Kind), Detail: k.Detail})
	}
	decision := map[string]any{
		"tool": t.Name, "verdict": dec.Verdict.String(), "reason": dec.Reason, "rule": dec.Rule, "risks": risks,
	}
	if !callLogFrom(ctx).hold("policy.decision", "policy", decision) {
		r.record(ctx, "policy.decision", "policy", sess, callID, decision)
	}
	switch dec.Verdict {
	case policy.Allow:
		r.deps.Sessions.Count(sess, session.Counters{Allowed: 1})
		return nil
	case policy.Deny:
		r.deps.Sessions.Count(sess, session.Counters{Denied: 1})
		return errorf("Denied by Gatehouse policy: %s (%s). Do not retry the same call; ask the person if it is needed.", dec.Reason, dec.Rule)
	}
	r.deps.Sessions.Count(sess, session.Counters{Asked: 1})
	// The approval card's rows follow the call's own.
	r.flushHeld(ctx)
	risks = append(risks, r.notRestorable(ctx, st, plan)...)
	always := policy.RuleFromCall(plan.Call, policy.ScopeAlways)
	req := approval.Request{
		Kind: approval.KindCall, Session: sess, CallID: callID, Actor: st.Live.Actor(), Tool: t.Name,
		Binary: plan.Call.Binary, Paths: plan.Call.Paths, URL: r.redact(plan.Call.URL),
		Diff: r.redact(plan.Diff), Reason: dec.Reason, Rule: dec.Rule.String(), Risks: risks,
		AlwaysRule: always.String(), Args: plan.Summary,
	}
	for _, a := range plan.Call.Argv {
		req.Argv = append(req.Argv, r.redact(a))
	}
	d, err := r.deps.Approvals.Ask(ctx, req)
	if err != nil {
		return fmt.Errorf("could not ask the person: %w", err)
	}
	if !d.Allow {
		r.deps.Sessions.Count(sess, session.Counters{Denied: 1})
		if d.By == "human" {
			if d.Message != "" {
				return errorf("The person denied this call: %s", d.Message)
			}
			return errorf("The person denied this call.")
		}
		return errorf("Not approved: %s.", d.Message)
	}
	switch d.Scope {
	case approval.ScopeSession:
		st.AddGrant(policy.RuleFromCall(plan.Call, policy.ScopeSession))
	case approval.ScopeAlways:
		if err := policy.AppendRule(r.deps.Policy.UserPath, always); err != nil {
			r.deps.Logger.Error("write always-allow rule", "err", err)
			r.record(ctx, "policy.rule_failed", "system", sess, callID, map[string]any{"error": err.Error()})
		} else {
			if err := r.deps.Policy.Reload(); err != nil {
				r.deps.Logger.Error("reload policy", "err", err)
			}
			r.record(ctx, "policy.rule_added", "human", sess, callID, map[string]any{"rule": always.String(), "file": r.deps.Policy.UserPath})
		}
	}
	return nil
}
