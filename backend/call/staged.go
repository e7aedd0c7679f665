package call

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/gatehouse-dev/gatehouse/backend/call/effect"
	"github.com/gatehouse-dev/gatehouse/backend/session"
	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// Staged runs: on a backend that can stage (bwrap), a mutating command
// runs against an overlay of the workspace (effect.Run), so it changes
// nothing there. When it ends, effect rules decide whether its change set
// lands at once, waits for the person behind an effect card, or is thrown
// away, and only then is the workspace touched (land.go).

// stageRoot is the session's stage root ("" when runs are not staged).
func (r *Runner) stageRoot(st *session.State) string {
	if r.deps.StageDir == "" {
		return ""
	}
	if s, ok := r.deps.Sandbox.(sandbox.Stager); !ok || !s.CanStage() {
		return ""
	}
	if len(r.linkedGitDirs(st)) > 0 {
		// Its commands write the repository's common git dir in place,
		// beside any overlay: they run checked, between checkpoints that
		// hold that dir too, so a change to it is judged and undone.
		return ""
	}
	return filepath.Join(r.deps.StageDir, st.Live.ID())
}

// linkedGitDirs are the common git dirs the session's sandbox shows
// writable beside its workspaces, when one is a linked worktree.
func (r *Runner) linkedGitDirs(st *session.State) []string {
	home, _ := os.UserHomeDir()
	return sandbox.LinkedGitDirs(st.Workspaces, r.deps.Hidden, home)
}

// canStage: a mutating command on a backend that stages, in a session
// whose sandbox has a stage root. A read-only one (ls, find, git status)
// runs with the workspaces read-only instead (see RunCommand), which
// keeps it out of everything without an overlay to mount and read.
func (r *Runner) canStage(c *InFlight) bool {
	return !c.readOnly && c.plan.MutatesAll && c.plan.Run != nil && r.stageRoot(c.State) != ""
}

// newStagedRun makes the call's empty layers, counted into the session's
// stage root so that the session's end leaves them to the run (runStaged
// counts it out).
func (r *Runner) newStagedRun(c *InFlight) (*effect.Run, error) {
	st := c.State
	h, root := heldBy(st), r.stageRoot(st)
	if !h.enterStage(root) {
		return nil, session.ErrNotActive
	}
	sr, err := effect.NewRun(root, c.ID, st.Workspaces, effect.PassThrough(st.Workspaces, h.tracked))
	if err != nil {
		h.leaveStage()
		return nil, err
	}
	return sr, nil
}

// runStaged is run for a staged call: the command, then its effect.
func (r *Runner) runStaged(ctx context.Context, c *InFlight, sr *effect.Run) Result {
	defer heldBy(c.State).leaveStage()
	// The layers leave the stage root before the session can count the
	// run out, and are unlinked after the answer.
	defer func() { _ = r.discards.Remove(sr.Root, sr.Dir) }()
	c.stage = sr
	out, err := c.plan.Run(ctx, c)
	if errors.Is(err, effect.ErrNotStaged) {
		// Nothing ran: run it the checked way instead.
		r.deps.Logger.Warn("staged run could not mount its overlays; running it checked instead", "call", c.ID)
		r.record(ctx, c, "stage.unavailable", "system", map[string]any{"reason": "the sandbox could not mount the overlays"})
		c.stage = nil
		return r.runChecked(ctx, c)
	}
	noteStopped(ctx, &out)
	// What the kill switch stopped does not land.
	c.stopped = errors.Is(context.Cause(ctx), session.ErrKilled)
	if err != nil {
		return r.failRun(ctx, c, err)
	}
	// The effect lands even when the agent's request is gone: the person
	// may be deciding its card.
	return r.finishOrWiden(ctx, c, r.land(context.WithoutCancel(ctx), c, sr, out))
}

// discardedDir, in the stage dir, holds layers being removed after their
// runs' answers (rmtree.Later); a daemon that stops meanwhile leaves
// them to effect.RecoverStaged, like any other layer.
const discardedDir = ".discarded"

// stageBudget caps one run's staged bytes: the checkpoint budget, since
// what a run stages is what its checkpoint would keep.
func (r *Runner) stageBudget() int64 {
	if r.deps.Snapshots == nil {
		return defaultStageBudget
	}
	return r.deps.Snapshots.Budget()
}

// defaultStageBudget applies when checkpoints are off.
const defaultStageBudget = 10 << 30
