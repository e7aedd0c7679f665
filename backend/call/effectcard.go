package call

import (
	"fmt"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/approval"
	"github.com/gatehouse-dev/gatehouse/backend/call/effect"
	"github.com/gatehouse-dev/gatehouse/backend/policy"
)

// The effect card shows what a command did: its changes (the first
// maxCardChanges of them), what the rules held it for, the person's own
// edits it would overwrite, and a diff of the text files it changed.

// maxCardChanges bounds the changes a card lists.
const maxCardChanges = 500

// effectCard is the approval for a held change set. staged says whether
// the workspace is still untouched (a staged run) or already changed (a
// run checked after the fact, which a deny rolls back).
func (r *Runner) effectCard(c *InFlight, cs effect.ChangeSets, dec policy.EffectDecision, staged bool, since conflictSince) approval.Request {
	created, modified, deleted := cs.Counts()
	findings := append([]string{fmt.Sprintf("%d files created, %d modified, %d deleted", created, modified, deleted)}, dec.Findings...)
	if !staged {
		findings = append(findings, "this sandbox cannot stage commands, so the changes are in the workspace already; Deny rolls them back")
	}
	req := approval.Request{
		Kind: approval.KindEffect, Session: c.Session(), CallID: c.ID, Actor: c.actor(), Tool: c.Req.Tool,
		Binary: c.plan.Action.Binary, Cwd: c.plan.Action.Cwd, Reason: dec.Reason, Rule: dec.Rule.String(),
		Findings: findings, Via: string(c.Req.Via), Native: c.Req.Native, Goal: c.State.Live.Snapshot().Goal,
		Staged: staged,
	}
	for _, a := range c.plan.Action.Argv {
		req.Argv = append(req.Argv, r.redact(a))
	}
	multi := len(cs.Workspaces) > 1
	for i, s := range cs.Sets {
		for _, ch := range s.Changes {
			if len(req.Changes) == maxCardChanges {
				break
			}
			req.Changes = append(req.Changes, effect.CardChange(effect.CardPath(cs.Workspaces[i], ch.Path, multi), ch))
		}
		if staged && since.ok {
			for _, cf := range effect.Conflicts(s, cs.Workspaces[i], since.t) {
				req.Conflicts = append(req.Conflicts, approval.ConflictNote{Path: effect.CardPath(cs.Workspaces[i], cf.Path, multi), Why: cf.Why})
			}
		}
	}
	if n := cs.Total(); n > maxCardChanges {
		req.Findings = append(req.Findings, fmt.Sprintf("the list shows the first %d of %d changes", maxCardChanges, n))
	}
	if staged {
		req.Diff = r.redact(effect.StagedDiff(cs, multi))
	}
	return req
}

// conflictSince is when a staged run began (ok false for a checked run).
type conflictSince struct {
	t  time.Time
	ok bool
}
