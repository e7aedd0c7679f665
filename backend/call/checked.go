package call

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/call/effect"
	"github.com/gatehouse-dev/gatehouse/backend/policy"
	"github.com/gatehouse-dev/gatehouse/backend/session"
	"github.com/gatehouse-dev/gatehouse/backend/snapshot"
)

// Checked runs: where a command cannot be staged (Landlock, the
// container, a staged run the sandbox could not mount), it runs in the
// workspace between two full checkpoints, and its effect is judged from
// their difference by the same rules. A change the rules or the person
// refuse is rolled back at once; until then it is visible in the
// workspace, which the README says.

// runChecked is everything from the first checkpoint to the answer.
func (r *Runner) runChecked(ctx context.Context, c *InFlight) Result {
	if c.held != nil {
		defer c.held.expect.Settle()
	}
	c.gitDirs = r.linkedGitDirs(c.State)
	pre, err := r.checkpoint(ctx, c, snapshot.Pre)
	if err != nil {
		return r.fail(ctx, c, "tool.refused", toolErrorf(err, "Gatehouse could not checkpoint the workspace before this call, so it did not run it (reads still run): %s", snapshot.Problem(err)))
	}
	out, err := c.plan.Run(ctx, c)
	// After, whatever happened: a failed command may have changed files.
	post, cerr := r.checkpoint(context.WithoutCancel(ctx), c, snapshot.Post)
	if cerr != nil {
		r.deps.Logger.Warn("post-call checkpoint", "call", c.ID, "err", cerr)
		out.Warning = "the checkpoint after this call failed (" + snapshot.Problem(cerr) + "), so it cannot be undone from Gatehouse"
	}
	noteStopped(ctx, &out)
	c.stopped = errors.Is(context.Cause(ctx), session.ErrKilled)
	if err != nil {
		return r.failRun(ctx, c, err)
	}
	if pre != "" && post != "" && c.plan.MutatesAll {
		out = r.checkEffect(context.WithoutCancel(ctx), c, pre, post, out)
	}
	return r.finishOrWiden(ctx, c, out)
}

// failRun answers a run that ended in an error.
func (r *Runner) failRun(ctx context.Context, c *InFlight, err error) Result {
	if cause := context.Cause(ctx); cause != nil && errors.Is(cause, session.ErrKilled) {
		err = session.ErrKilled
	}
	return r.fail(ctx, c, "tool.error", err)
}

// checkEffect judges what an unstaged command did from its checkpoints,
// and rolls it back when the rules or the person refuse it.
func (r *Runner) checkEffect(ctx context.Context, c *InFlight, pre, post string, out Output) Output {
	changes, err := r.deps.Snapshots.ChangeList(ctx, pre, post)
	if err != nil {
		r.deps.Logger.Warn("read a checked run's changes", "call", c.ID, "err", err)
		return out
	}
	cs := effect.FromCheckpoints(c.State.Workspaces, c.gitDirs, changes)
	// What the run changed in place, git's files included, is read as it
	// was from the checkpoint before (the workspace holds only the after).
	cs.ReadPriors(func(root, rel string) ([]byte, error) { return r.deps.Snapshots.ReadFile(pre, root, rel) })
	res := effect.Result{}
	dec, changed := r.judgeEffect(ctx, c, cs, &res, func() map[string]any { return map[string]any{"staged": false} })
	if !changed {
		return withEffect(out, res)
	}
	res.Outcome = effect.OutcomeApplied
	switch dec.Verdict {
	case policy.Allow:
		return withEffect(out, res)
	case policy.Ask:
		res.Held = true
		d, err := r.Ask(ctx, c, r.effectCard(c, cs, dec, false, time.Time{}))
		if err == nil && d.Allow {
			res.Add("The person approved this command's changes.")
			return withEffect(out, res)
		}
		refusedBy(&res, d, err)
		res.Add("The command's changes were held for the person (" + dec.Reason + ") and " + effect.NotApproved(d, err))
	default:
		res.By = session.ByPolicy
		res.Add(fmt.Sprintf("Gatehouse policy refused this command's changes (%s, %s)", dec.Reason, dec.Rule))
	}
	if err := r.undoCall(ctx, c); err != nil {
		r.deps.Logger.Error("roll back a refused effect", "call", c.ID, "err", err)
		res.Note += "; rolling them back failed (" + err.Error() + "): undo this call with `gatehouse rollback` once the cause is fixed."
		return withEffect(out, res)
	}
	res.Outcome = effect.OutcomeRolledBack
	res.Note += "; Gatehouse rolled them back."
	return withEffect(out, res)
}

// undoCall rolls back what call c changed, keeping later outside edits.
func (r *Runner) undoCall(ctx context.Context, c *InFlight) error {
	plan, err := r.deps.Snapshots.Plan(ctx, snapshot.RollbackRequest{Session: c.Session(), UndoCall: c.ID})
	if err != nil {
		return err
	}
	res, err := r.deps.Snapshots.Apply(ctx, plan)
	if err != nil {
		r.record(ctx, c, "rollback.failed", "system", map[string]any{"plan": plan.ID, "error": err.Error()})
		return err
	}
	r.record(ctx, c, "rollback.applied", "system", map[string]any{
		"plan": plan.ID, "undo_call": c.ID, "reason": "effect refused", "restored": res.Restored, "deleted": res.Deleted, "recreated": res.Recreated,
	})
	return nil
}
