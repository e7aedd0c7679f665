package call

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/approval"
	"github.com/gatehouse-dev/gatehouse/backend/call/effect"
	"github.com/gatehouse-dev/gatehouse/backend/policy"
	"github.com/gatehouse-dev/gatehouse/backend/rmtree"
	"github.com/gatehouse-dev/gatehouse/backend/session"
	"github.com/gatehouse-dev/gatehouse/backend/snapshot"
)

// Landing a staged run: read its change set, let effect rules decide,
// ask the person when they hold it, and apply it (checkpointed before and
// after, so rollback and undo work as for any call) or throw it away.

// Outcome is what became of a command's changes.
type Outcome string

const (
	OutcomeUnchanged  Outcome = "unchanged"   // it changed nothing
	OutcomeApplied    Outcome = "applied"     // its changes are in the workspace
	OutcomeDiscarded  Outcome = "discarded"   // its changes were thrown away; the workspace was never touched
	OutcomeRolledBack Outcome = "rolled_back" // it ran unstaged, and its changes were undone
)

// EffectResult is the result's "effect" part, which tells the agent what
// happened to the command's changes.
type EffectResult struct {
	Outcome   Outcome  `json:"outcome"`
	Staged    bool     `json:"staged"`
	Held      bool     `json:"held"` // the person was asked
	Created   int      `json:"created"`
	Modified  int      `json:"modified"`
	Deleted   int      `json:"deleted"`
	Reason    string   `json:"reason,omitempty"`
	Conflicts []string `json:"conflicts,omitempty"` // paths where the person's version was kept
	KeptOut   []string `json:"kept_out,omitempty"`  // protected paths the run wrote, never applied
	Note      string   `json:"note,omitempty"`      // one sentence for the agent
	// warning: it landed, but the checkpoint after it failed.
	warning string
}

// add appends a sentence to the note.
func (e *EffectResult) add(s string) {
	if e.Note != "" {
		e.Note += " "
	}
	e.Note += s
}

// judgeEffect counts a change set into res and lets the effect rules
// judge it, recording their decision with the row's extra fields. changed
// is false when the set is empty: res is then final and no rule is asked.
func (r *Runner) judgeEffect(ctx context.Context, c *InFlight, cs effect.ChangeSets, res *EffectResult, extra func() map[string]any) (dec policy.EffectDecision, changed bool) {
	res.Created, res.Modified, res.Deleted = cs.Counts()
	if cs.Total() == 0 {
		res.Outcome = OutcomeUnchanged
		return dec, false
	}
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
func withEffect(out Output, e EffectResult) Output {
	if out.Structured == nil {
		out.Structured = map[string]any{}
	}
	out.Structured["effect"] = StructuredOf(e)
	if e.Note != "" {
		if out.Text != "" && !strings.HasSuffix(out.Text, "\n") {
			out.Text += "\n"
		}
		out.Text += "gatehouse: " + e.Note + "\n"
	}
	if e.Outcome == OutcomeDiscarded || e.Outcome == OutcomeRolledBack || len(e.KeptOut) > 0 {
		out.IsError = true
	}
	if e.warning != "" {
		out.Warning = e.warning
	}
	return out
}

// land decides and carries out what becomes of a staged run's changes.
func (r *Runner) land(ctx context.Context, c *InFlight, sr *stagedRun, out Output) Output {
	if c.stageFull != nil {
		r.record(ctx, c, "stage.discarded", "system", map[string]any{"reason": "budget"})
		return withEffect(out, EffectResult{Outcome: OutcomeDiscarded, Staged: true, Note: c.stageFull.Error()})
	}
	start := time.Now()
	sets, err := readSets(sr)
	if err != nil {
		r.deps.Logger.Error("read staged changes", "call", c.ID, "err", err)
		r.record(ctx, c, "stage.discarded", "system", map[string]any{"reason": "unreadable", "error": err.Error()})
		return withEffect(out, EffectResult{Outcome: OutcomeDiscarded, Staged: true,
			Note: "Gatehouse could not read what the command changed, so it kept none of it; run it again, or see the daemon's log for " + c.ID})
	}
	uppers := make([]string, len(sets))
	for i := range sets {
		uppers[i] = sr.upper(i)
	}
	if b := r.stageBudget(); b > 0 && sumBytes(sets) > b {
		// Written faster than the watch looks: the same limit holds.
		full := errStageFull{b}
		r.record(ctx, c, "stage.discarded", "system", map[string]any{"reason": "budget"})
		return withEffect(out, EffectResult{Outcome: OutcomeDiscarded, Staged: true, Note: full.Error()})
	}
	cs, kept, err := effect.KeepOut(effect.ChangeSets{Workspaces: sr.workspaces, Sets: sets, Uppers: uppers})
	if err != nil {
		r.deps.Logger.Error("tell the protected paths of a staged run", "call", c.ID, "err", err)
		r.record(ctx, c, "stage.discarded", "system", map[string]any{"reason": "protected paths unknown", "error": err.Error()})
		return withEffect(out, EffectResult{Outcome: OutcomeDiscarded, Staged: true,
			Note: "Gatehouse could not tell which paths in the workspace are protected, so it kept none of the command's changes: " + err.Error()})
	}
	res := EffectResult{Staged: true, KeptOut: kept}
	if len(kept) > 0 {
		r.record(ctx, c, "stage.kept_out", "system", map[string]any{"paths": kept})
		res.add(fmt.Sprintf("Gatehouse did not apply %s: the host runs or reads %s as configuration, so a command may not create or change %s.",
			strings.Join(firstN(kept, 10), ", "), pronoun(len(kept), "it", "them"), pronoun(len(kept), "it", "them")))
	}
	dec, changed := r.judgeEffect(ctx, c, cs, &res, func() map[string]any {
		return map[string]any{"staged_bytes": sumBytes(sets), "read_ms": time.Since(start).Milliseconds()}
	})
	if !changed {
		return withEffect(out, res)
	}
	var chosen map[string]bool
	switch dec.Verdict {
	case policy.Deny:
		r.record(ctx, c, "stage.discarded", "policy", map[string]any{"reason": dec.Reason})
		res.Outcome = OutcomeDiscarded
		res.add(fmt.Sprintf("Gatehouse policy discarded this command's changes (%s, %s); the workspace was not touched. Do not retry it; ask the person if it is needed.", dec.Reason, dec.Rule))
		return withEffect(out, res)
	case policy.Ask:
		res.Held = true
		r.deps.Sessions.Count(c.Session(), session.Counters{Asked: 1})
		d, err := r.Ask(ctx, c, r.effectCard(c, cs, dec, true, conflictSince{t: sr.since, ok: true}))
		if err != nil || !d.Allow {
			r.deps.Sessions.Count(c.Session(), session.Counters{Denied: 1})
			r.record(ctx, c, "stage.discarded", "human", map[string]any{"reason": "not approved"})
			res.Outcome = OutcomeDiscarded
			res.add("The command ran, but its changes were held for the person (" + dec.Reason + ") and " + notApproved(d, err) + "; the workspace was not touched.")
			return withEffect(out, res)
		}
		chosen = map[string]bool{}
		for _, p := range d.Staged {
			chosen[p] = true
		}
	}
	return withEffect(out, r.applyStaged(ctx, c, sr, cs, chosen, res))
}

// notApproved says how a held effect ended without an allow.
func notApproved(d approval.Decision, err error) string {
	switch {
	case err != nil:
		return "no decision came (" + err.Error() + "), so they were discarded"
	case d.By == "human" && d.Message != "":
		return "the person discarded them: " + d.Message
	case d.By == "human":
		return "the person discarded them"
	}
	return "they were discarded (" + d.By + ")"
}

func sumBytes(sets []effect.Set) int64 {
	var n int64
	for _, s := range sets {
		n += s.Bytes
	}
	return n
}

// applyStaged lands the change sets. The checkpoint before reads exactly
// the changed paths from the workspace (still as they were) and the one
// after the same paths as applied, so undo and rollback cover the call
// without a walk of the workspace.
func (r *Runner) applyStaged(ctx context.Context, c *InFlight, sr *stagedRun, cs effect.ChangeSets, chosen map[string]bool, res EffectResult) EffectResult {
	paths := changedPaths(cs)
	if _, err := r.scopedCheckpoint(ctx, c, snapshot.Pre, paths); err != nil {
		res.Outcome = OutcomeDiscarded
		res.add("Gatehouse could not checkpoint the workspace before applying this command's changes, so it kept none of them: " + checkpointProblem(err))
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
			Set: s, Upper: sr.upper(i), Workspace: cs.Workspaces[i], Since: sr.since, Staged: chosenIn(chosen, cs.Workspaces[i], len(cs.Workspaces) > 1),
			Journal: r.journalPath(c.ID, i), Step: r.applyStep(c, cs.Total()),
		})
		applied += len(a.Paths)
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
		res.warning = "the checkpoint after this call failed (" + checkpointProblem(err) + "), so it cannot be undone from Gatehouse"
	}
	r.record(ctx, c, "stage.applied", "system", map[string]any{
		"applied": applied, "conflicts": res.Conflicts, "problems": problems, "duration_ms": time.Since(start).Milliseconds(),
	})
	res.Outcome = OutcomeApplied
	switch {
	case len(problems) > 0:
		res.add("Some of this command's changes could not be applied: " + strings.Join(problems, "; "))
	case len(res.Conflicts) > 0:
		res.add(fmt.Sprintf("Applied the command's changes, except %d path(s) changed in the workspace meanwhile, where the person's version was kept: %s", len(res.Conflicts), strings.Join(firstN(res.Conflicts, 10), ", ")))
	case res.Held:
		res.add("The person approved this command's changes, and they are applied.")
	}
	return res
}

// chosenIn are the conflicting paths the person chose to overwrite, in
// one workspace's terms.
func chosenIn(chosen map[string]bool, ws string, multi bool) map[string]bool {
	if !multi {
		return chosen
	}
	out := map[string]bool{}
	prefix := filepath.Base(ws) + "/"
	for p := range chosen {
		if strings.HasPrefix(p, prefix) {
			out[filepath.FromSlash(strings.TrimPrefix(p, prefix))] = true
		}
	}
	return out
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], fmt.Sprintf("and %d more", len(s)-n))
	}
	return s
}

// changedPaths are the absolute paths a change set touches, for the
// scoped checkpoints around its apply.
func changedPaths(cs effect.ChangeSets) []string {
	var out []string
	for i, s := range cs.Sets {
		for _, c := range s.Changes {
			out = append(out, filepath.Join(cs.Workspaces[i], c.Path))
		}
	}
	return out
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

// journalsDir holds the journals of applies under way; a daemon that
// starts with one there was killed mid-apply (see RecoverStaged).
const journalsDir = "journals"

func (r *Runner) journalPath(call string, i int) string {
	dir := filepath.Join(r.deps.StageDir, journalsDir)
	_ = os.MkdirAll(dir, 0o700)
	return filepath.Join(dir, call+"-"+strconv.Itoa(i)+".json")
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

// RecoverStaged runs at start-up, before any call: it finishes the
// applies a killed daemon left journaled (so no half-applied tree
// survives) and throws away every other staged layer, whose runs and
// cards died with that daemon. It returns the workspaces it finished
// applies in.
func RecoverStaged(ctx context.Context, stageDir string) (finished []string, err error) {
	if stageDir == "" {
		return nil, nil
	}
	jdir := filepath.Join(stageDir, journalsDir)
	ents, _ := os.ReadDir(jdir)
	var errs []error
	for _, e := range ents {
		p := filepath.Join(jdir, e.Name())
		found, err := effect.Recover(ctx, p)
		switch {
		case errors.Is(err, effect.ErrWorkspaceGone):
		case err != nil:
			errs = append(errs, err)
			continue // kept, with its layers, for the next start
		case found:
			finished = append(finished, p)
		}
	}
	if len(errs) > 0 {
		return finished, errors.Join(errs...)
	}
	all, _ := os.ReadDir(stageDir)
	for _, e := range all {
		if e.Name() != journalsDir {
			_ = rmtree.Under(stageDir, e.Name())
		}
	}
	return finished, nil
}

func pronoun(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
