package call

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/call/effect"
	"github.com/gatehouse-dev/gatehouse/backend/plural"
	"github.com/gatehouse-dev/gatehouse/backend/policy"
	"github.com/gatehouse-dev/gatehouse/backend/session"
	"github.com/gatehouse-dev/gatehouse/backend/snapshot"
)

// Landing a staged run: read its change set, let effect rules decide,
// ask the person when they hold it, and apply it (checkpointed before and
// after, so rollback and undo work as for any call) or throw it away.

// judgeEffect counts a change set into res and lets the effect rules
// judge it, recording their decision with the row's extra fields. changed
// is false when the set is empty: res is then final and no rule is asked.
func (r *Runner) judgeEffect(ctx context.Context, c *InFlight, cs effect.ChangeSets, res *effect.Result, extra func() map[string]any) (dec policy.EffectDecision, changed bool) {
	res.Created, res.Modified, res.Deleted = cs.Counts()
	if cs.Total() == 0 {
		res.Outcome = effect.OutcomeUnchanged
		return dec, false
	}
	cs.Expose = r.Exposure()
	dec = r.deps.Policy.Get().DecideEffect(effect.PolicyEffect(ctx, cs))
	row := map[string]any{
		"verdict": dec.Verdict.String(), "rule": dec.Rule, "reason": dec.Reason, "findings": dec.Findings,
		"created": res.Created, "modified": res.Modified, "deleted": res.Deleted,
	}
	maps.Copy(row, extra())
	r.record(ctx, c, "effect.decision", "policy", row)
	res.Reason = dec.Reason
	return dec, true
}

// withEffect adds the effect to a command's output: a note in the text,
// the summary in the structured part, and an error when nothing landed.
func withEffect(out Output, e effect.Result) Output {
	if out.Structured == nil {
		out.Structured = map[string]any{}
	}
	out.Structured["effect"] = StructuredOf(e)
	out.Effect = &e
	if e.Note != "" {
		if out.Text != "" && !strings.HasSuffix(out.Text, "\n") {
			out.Text += "\n"
		}
		out.Text += "gatehouse: " + e.Note + "\n"
	}
	if e.Outcome == effect.OutcomeDiscarded || e.Outcome == effect.OutcomeRolledBack || len(e.KeptOut) > 0 {
		out.IsError = true
	}
	if e.Warning != "" {
		out.Warning = e.Warning
	}
	return out
}

// land decides and carries out what becomes of a staged run's changes.
func (r *Runner) land(ctx context.Context, c *InFlight, sr *effect.Run, out Output) Output {
	if c.stageFull != nil {
		r.record(ctx, c, "stage.discarded", "system", map[string]any{"reason": "budget"})
		return withEffect(out, effect.Result{Outcome: effect.OutcomeDiscarded, Staged: true, By: session.ByGatehouse, Note: c.stageFull.Error()})
	}
	start := time.Now()
	sets, err := sr.Sets()
	if c.stopped {
		return withEffect(out, r.stoppedEffect(ctx, c, sr, sets, err))
	}
	if err != nil {
		r.deps.Logger.Error("read staged changes", "call", c.ID, "err", err)
		r.record(ctx, c, "stage.discarded", "system", map[string]any{"reason": "unreadable", "error": err.Error()})
		return withEffect(out, effect.Result{Outcome: effect.OutcomeDiscarded, Staged: true, By: session.ByGatehouse,
			Note: "Gatehouse could not read what the command changed, so it kept none of it; run it again, or see the daemon's log for " + c.ID})
	}
	if b := r.stageBudget(); b > 0 && effect.SumBytes(sets) > b {
		// Written faster than the watch looks: the same limit holds.
		full := effect.ErrFull{Budget: b}
		r.record(ctx, c, "stage.discarded", "system", map[string]any{"reason": "budget"})
		return withEffect(out, effect.Result{Outcome: effect.OutcomeDiscarded, Staged: true, By: session.ByGatehouse, Note: full.Error()})
	}
	cs, kept, err := effect.KeepOut(effect.ChangeSets{Workspaces: sr.Workspaces, Sets: sets, Uppers: sr.Uppers()})
	if err != nil {
		r.deps.Logger.Error("tell the protected paths of a staged run", "call", c.ID, "err", err)
		r.record(ctx, c, "stage.discarded", "system", map[string]any{"reason": "protected paths unknown", "error": err.Error()})
		return withEffect(out, effect.Result{Outcome: effect.OutcomeDiscarded, Staged: true, By: session.ByGatehouse,
			Note: "Gatehouse could not tell which paths in the workspace are protected, so it kept none of the command's changes: " + err.Error()})
	}
	res := effect.Result{Staged: true, KeptOut: kept}
	if len(kept) > 0 {
		r.record(ctx, c, "stage.kept_out", "system", map[string]any{"paths": kept})
		res.Add(keptOutNote(kept))
	}
	dec, changed := r.judgeEffect(ctx, c, cs, &res, func() map[string]any {
		return map[string]any{"staged_bytes": effect.SumBytes(sets), "read_ms": time.Since(start).Milliseconds()}
	})
	if !changed {
		return withEffect(out, res)
	}
	var chosen map[string]bool
	switch dec.Verdict {
	case policy.Deny:
		r.record(ctx, c, "stage.discarded", "policy", map[string]any{"reason": dec.Reason})
		res.Outcome, res.By = effect.OutcomeDiscarded, session.ByPolicy
		res.Add(fmt.Sprintf("Gatehouse policy discarded this command's changes (%s, %s); the workspace was not touched. Do not retry it; ask the person if it is needed.", dec.Reason, dec.Rule))
		return withEffect(out, res)
	case policy.Ask:
		res.Held = true
		d, err := r.Ask(ctx, c, r.effectCard(c, cs, dec, true, sr.Since))
		if err != nil || !d.Allow {
			r.record(ctx, c, "stage.discarded", "human", map[string]any{"reason": "not approved"})
			res.Outcome = effect.OutcomeDiscarded
			refusedBy(&res, d, err)
			res.Add("The command ran, but its changes were held for the person (" + dec.Reason + ") and " + effect.NotApproved(d, err) + "; the workspace was not touched.")
			return withEffect(out, res)
		}
		chosen = map[string]bool{}
		for _, p := range d.Staged {
			chosen[p] = true
		}
	}
	return withEffect(out, r.applyStaged(ctx, c, sr, cs, chosen, res))
}

// stoppedEffect is what becomes of a run the kill switch stopped: none of
// its changes land. Its layers are still there to say whether it changed
// anything (the session's end leaves them to the run).
func (r *Runner) stoppedEffect(ctx context.Context, c *InFlight, sr *effect.Run, sets []effect.Set, err error) effect.Result {
	res := effect.Result{Outcome: effect.OutcomeUnchanged, Staged: true, By: session.ByKillSwitch}
	if err != nil {
		r.deps.Logger.Warn("read a stopped run's staged changes", "call", c.ID, "err", err)
	} else {
		res.Created, res.Modified, res.Deleted = effect.ChangeSets{Workspaces: sr.Workspaces, Sets: sets}.Counts()
		if res.Created+res.Modified+res.Deleted == 0 {
			return res
		}
	}
	r.record(ctx, c, "stage.discarded", "system", map[string]any{"reason": "kill switch"})
	res.Outcome = effect.OutcomeDiscarded
	res.Add("The person's kill switch stopped this command, so Gatehouse kept none of its changes; the workspace was not touched.")
	return res
}

// applyStaged lands the change sets. The checkpoint before reads exactly
// the changed paths from the workspace (still as they were) and the one
// after the same paths as applied, so undo and rollback cover the call
// without a walk of the workspace.
func (r *Runner) applyStaged(ctx context.Context, c *InFlight, sr *effect.Run, cs effect.ChangeSets, chosen map[string]bool, res effect.Result) effect.Result {
	paths := cs.Paths()
	if _, err := r.scopedCheckpoint(ctx, c, snapshot.Pre, paths); err != nil {
		res.Outcome, res.By = effect.OutcomeDiscarded, session.ByGatehouse
		res.Add("Gatehouse could not checkpoint the workspace before applying this command's changes, so it kept none of them: " + snapshot.Problem(err))
		return res
	}
	start := time.Now()
	r.record(ctx, c, "stage.applying", "system", map[string]any{"changes": cs.Total()})
	var applied int
	var problems []string
	for i, s := range cs.Sets {
		if len(s.Changes) == 0 {
			continue
		}
		a, err := effect.Apply(ctx, effect.ApplyRequest{
			Set: s, Upper: sr.Upper(i), Workspace: cs.Workspaces[i], Since: sr.Since, Staged: effect.ChosenIn(chosen, cs.Workspaces[i], len(cs.Workspaces) > 1),
			Journal: effect.JournalPath(r.deps.StageDir, c.ID, i), Step: r.applyStep(c, cs.Total()),
		})
		applied += len(a.Paths)
		if err == nil {
			sr.Unshare(i)
		}
		for _, cf := range append(a.Conflicts, a.Skipped...) {
			if !chosen[cf.Path] {
				res.Conflicts = append(res.Conflicts, effect.CardPath(cs.Workspaces[i], cf.Path, len(cs.Workspaces) > 1))
			}
		}
		if err != nil {
			r.deps.Logger.Error("apply staged changes", "call", c.ID, "workspace", cs.Workspaces[i], "err", err)
			if errors.Is(err, effect.ErrWorkspaceGone) {
				problems = append(problems, cs.Workspaces[i]+" is gone, so nothing was applied there")
			} else {
				problems = append(problems, "applying in "+cs.Workspaces[i]+" stopped: "+err.Error())
			}
		}
	}
	if _, err := r.scopedCheckpoint(context.WithoutCancel(ctx), c, snapshot.Post, paths); err != nil {
		r.deps.Logger.Warn("post-apply checkpoint", "call", c.ID, "err", err)
		res.Warning = "the checkpoint after this call failed (" + snapshot.Problem(err) + "), so it cannot be undone from Gatehouse"
	}
	r.record(ctx, c, "stage.applied", "system", map[string]any{
		"applied": applied, "conflicts": res.Conflicts, "problems": problems, "duration_ms": time.Since(start).Milliseconds(),
	})
	res.Outcome = effect.OutcomeApplied
	switch {
	case len(problems) > 0:
		res.Add("Some of this command's changes could not be applied: " + strings.Join(problems, "; "))
	case len(res.Conflicts) > 0:
		res.Add(fmt.Sprintf("Applied the command's changes, except %s in the workspace meanwhile, where the person's version was kept: %s", plural.Count(len(res.Conflicts), "path changed", "paths changed"), strings.Join(firstN(res.Conflicts, 10), ", ")))
	case res.Held:
		res.Add("The person approved this command's changes, and they are applied.")
	}
	return res
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], fmt.Sprintf("and %d more", len(s)-n))
	}
	return s
}

// scopedCheckpoint checkpoints just paths around an apply.
func (r *Runner) scopedCheckpoint(ctx context.Context, c *InFlight, phase snapshot.Phase, paths []string) (string, error) {
	if r.deps.Snapshots == nil || len(paths) == 0 {
		return "", nil
	}
	cp, err := r.deps.Snapshots.Checkpoint(ctx, snapshot.Request{Session: c.Session(), CallID: c.ID, Phase: phase, Roots: c.State.Workspaces, Paths: paths})
	r.health.note(err)
	if err != nil {
		r.record(ctx, c, "checkpoint.failed", "system", map[string]any{"phase": phase, "error": err.Error()})
		return "", err
	}
	r.record(ctx, c, "checkpoint.created", "system", map[string]any{
		"checkpoint": cp.ID, "phase": cp.Phase, "files": cp.Stats.Files, "hashed": cp.Stats.Hashed,
		"new_bytes": cp.Stats.NewBytes, "duration_ms": cp.Stats.Duration.Milliseconds(), "scoped": true,
	})
	return cp.ID, nil
}

// applyStep reports progress on a long apply, and stalls it on purpose
// for the tests that kill the daemon mid-apply (StallApplyAfter).
func (r *Runner) applyStep(c *InFlight, total int) func(done, _ int) {
	return func(done, _ int) {
		if n := r.stallApply.Load(); n > 0 && int64(done) >= n {
			r.deps.Logger.Warn("fault injection: the apply stalls here (GATEHOUSE_FAULT_STALL_APPLY)", "call", c.ID, "done", done)
			select {} // until the test kills the daemon
		}
		if p := c.Req.Progress; p != nil && done%1000 == 0 {
			p(fmt.Sprintf("applying the command's changes: %d of %d", done, total))
		}
	}
}

// StallApplyAfter makes every apply stop for good after n steps, so a
// test can kill the daemon mid-apply (GATEHOUSE_FAULT_STALL_APPLY).
func (r *Runner) StallApplyAfter(n int) { r.stallApply.Store(int64(n)) }

func pronoun(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// keptOutNote says which protected paths a staged run wrote and never
// applied, and why; a steering file (CLAUDE.md, .devcontainer) is named
// with who reads or runs it and how it may still be changed.
func keptOutNote(kept []string) string {
	var steering []string
	for _, p := range firstN(kept, 10) {
		if s := steeringSentence(p); s != "" && len(steering) < maxBoundaryNotes {
			steering = append(steering, s)
		}
	}
	note := fmt.Sprintf("Gatehouse did not apply %s: the host runs or reads %s as configuration, so a command may not create or change %s.",
		strings.Join(firstN(kept, 10), ", "), pronoun(len(kept), "it", "them"), pronoun(len(kept), "it", "them"))
	if len(steering) > 0 {
		note += " " + strings.Join(steering, " ")
	}
	return note
}
