package call

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/approval"
	"github.com/gatehouse-dev/gatehouse/backend/plural"
	"github.com/gatehouse-dev/gatehouse/backend/snapshot"
)

// checkpoint records the workspace before or after a mutating call:
// write_file/edit_file their own paths, run_command every root.
// It returns the checkpoint's id ("" when none was taken).
func (r *Runner) checkpoint(ctx context.Context, c *InFlight, phase snapshot.Phase) (string, error) {
	plan := c.plan
	if c.readOnly || (!plan.MutatesAll && len(plan.Mutates) == 0) {
		return "", nil
	}
	if r.deps.Snapshots == nil {
		if phase == snapshot.Pre {
			r.record(ctx, c, "checkpoint.skipped", "system", map[string]any{"reason": "checkpoints are off; this call cannot be rolled back"})
		}
		return "", nil
	}
	req := snapshot.Request{Session: c.Session(), CallID: c.ID, Phase: phase, Roots: c.State.Workspaces}
	if plan.MutatesAll && len(c.gitDirs) > 0 {
		req.Roots = append(slices.Clip(req.Roots), c.gitDirs...)
	} else if !plan.MutatesAll {
		for _, p := range plan.Mutates {
			req.Paths = append(req.Paths, p.Abs)
		}
	}
	cp, err := r.deps.Snapshots.Checkpoint(ctx, req)
	r.health.note(err)
	if err != nil {
		r.record(ctx, c, "checkpoint.failed", "system", map[string]any{"phase": phase, "error": err.Error()})
		return "", err
	}
	payload := map[string]any{
		"checkpoint": cp.ID, "phase": cp.Phase, "files": cp.Stats.Files, "hashed": cp.Stats.Hashed,
		"new_bytes": cp.Stats.NewBytes, "duration_ms": cp.Stats.Duration.Milliseconds(), "scoped": len(req.Paths) > 0,
	}
	if n := len(cp.NotRestorable); n > 0 {
		payload["not_restorable"] = cp.NotRestorable[:min(n, 20)]
	}
	r.record(ctx, c, "checkpoint.created", "system", payload)
	return cp.ID, nil
}

// notRestorable warns on the approval card about files a rollback could
// not bring back (too large, unreadable, special files).
func (r *Runner) notRestorable(ctx context.Context, c *InFlight) []approval.Risk {
	plan := c.plan
	if r.deps.Snapshots == nil || (!plan.MutatesAll && len(plan.Mutates) == 0) {
		return nil
	}
	var paths []string
	for _, p := range plan.Mutates {
		paths = append(paths, p.Abs)
	}
	list, err := r.deps.Snapshots.Preflight(ctx, c.State.Workspaces, paths)
	if err != nil {
		return []approval.Risk{{Kind: "not-restorable", Detail: "could not check what a rollback would cover: " + err.Error()}}
	}
	var out []approval.Risk
	for i, n := range list {
		if i == 5 {
			out = append(out, approval.Risk{Kind: "not-restorable", Detail: "and " + plural.Count(len(list)-5, "more file", "more files")})
			break
		}
		out = append(out, approval.Risk{Kind: "not-restorable", Detail: fmt.Sprintf("%s/%s (%s) cannot be restored by a rollback", n.Root, n.Path, n.Kind)})
	}
	return out
}

// checkpointHealth remembers whether checkpoints are failing, so the
// person sees a banner instead of finding out at rollback time.
type checkpointHealth struct {
	mu      sync.Mutex
	problem string
	since   time.Time
}

func (h *checkpointHealth) note(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if err == nil {
		h.problem, h.since = "", time.Time{}
		return
	}
	if h.problem == "" {
		h.since = time.Now().UTC()
	}
	h.problem = snapshot.Problem(err)
}

// CheckpointProblem is what is wrong with checkpoints now ("" when the
// last one worked) and since when.
func (r *Runner) CheckpointProblem() (string, time.Time) {
	r.health.mu.Lock()
	defer r.health.mu.Unlock()
	return r.health.problem, r.health.since
}
