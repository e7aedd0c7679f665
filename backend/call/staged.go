package call

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/call/effect"
	"github.com/gatehouse-dev/gatehouse/backend/rmtree"
	"github.com/gatehouse-dev/gatehouse/backend/session"
	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// Staged runs: on a backend that can stage (bwrap), a mutating command
// runs against an overlay of the workspace, so it changes nothing there.
// When it ends, its upper layer is the exact change set: effect rules
// decide whether it lands at once, waits for the person behind an effect
// card, or is thrown away (effect.go), and only then is the workspace
// touched (land.go). No walk of the workspace happens on the way, so a
// call costs the same in a monorepo as in a toy repository.

// stagedRun is one call's layers in the session's stage root.
type stagedRun struct {
	root string // the session's stage root
	dir  string // the call's directory in it
	// since is when the run began: a workspace path changed later was
	// changed by someone else.
	since       time.Time
	workspaces  []string
	passThrough []string
}

func (s *stagedRun) upper(i int) string { return sandbox.StageUpper(s.root, s.dir, i) }

// discard removes the run's layers, whose overlay work directories (and
// whatever the command made unreadable) os.RemoveAll cannot get into.
func (s *stagedRun) discard() { _ = rmtree.Under(s.root, s.dir) }

// errNotStaged: the sandbox could not mount the overlays, and the command
// did not start.
var errNotStaged = errors.New("the sandbox could not stage the run")

// stageRoot is the session's stage root ("" when runs are not staged).
func (r *Runner) stageRoot(st *session.State) string {
	if r.deps.StageDir == "" {
		return ""
	}
	if s, ok := r.deps.Sandbox.(sandbox.Stager); !ok || !s.CanStage() {
		return ""
	}
	return filepath.Join(r.deps.StageDir, st.Live.ID())
}

// canStage: a mutating command on a backend that stages, in a session
// whose sandbox has a stage root. A read-only one (ls, find, git status)
// runs with the workspaces read-only instead (see execute), which
// keeps it out of everything without an overlay to mount and read.
func (r *Runner) canStage(c *InFlight) bool {
	return !c.readOnly && c.plan.MutatesAll && c.plan.Run != nil && r.stageRoot(c.State) != ""
}

// newStagedRun makes the call's empty layers.
func (r *Runner) newStagedRun(c *InFlight) (*stagedRun, error) {
	sr := &stagedRun{root: r.stageRoot(c.State), dir: c.ID, since: time.Now(), workspaces: c.State.Workspaces}
	for i := range sr.workspaces {
		for _, d := range []string{sr.upper(i), sandbox.StageWork(sr.root, sr.dir, i)} {
			if err := os.MkdirAll(d, 0o700); err != nil {
				sr.discard()
				return nil, fmt.Errorf("make the staging layers: %w", err)
			}
		}
	}
	sr.passThrough = r.passThrough(c.State)
	return sr, nil
}

// runStaged is run for a staged call: the command, then its effect.
func (r *Runner) runStaged(ctx context.Context, c *InFlight, sr *stagedRun) Result {
	defer sr.discard()
	c.stage = sr
	out, err := c.plan.Run(ctx, c)
	if errors.Is(err, errNotStaged) {
		// Nothing ran: run it the checked way instead.
		r.deps.Logger.Warn("staged run could not mount its overlays; running it checked instead", "call", c.ID)
		r.record(ctx, c, "stage.unavailable", "system", map[string]any{"reason": "the sandbox could not mount the overlays"})
		c.stage = nil
		return r.runChecked(ctx, c)
	}
	noteStopped(ctx, &out)
	if err != nil {
		return r.failRun(ctx, c, err)
	}
	// The effect lands even when the agent's request is gone: the person
	// may be deciding its card.
	return r.finish(ctx, c, r.land(context.WithoutCancel(ctx), c, sr, out))
}

// readSets reads each workspace's change set from its upper layer.
func readSets(sr *stagedRun) ([]effect.Set, error) {
	sets := make([]effect.Set, len(sr.workspaces))
	for i, ws := range sr.workspaces {
		s, err := effect.Read(sr.upper(i), ws)
		if err != nil {
			return nil, err
		}
		sets[i] = s
	}
	return sets, nil
}

// stagedBytes is what the run's upper layers hold now.
func stagedBytes(sr *stagedRun) int64 {
	var n int64
	_ = filepath.WalkDir(filepath.Join(sr.root, sr.dir), func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// errStageFull stops a staged run that wrote more than the budget.
type errStageFull struct{ budget int64 }

func (e errStageFull) Error() string {
	return fmt.Sprintf("the command wrote more than %d MiB of staged changes, the checkpoint budget ([snapshots] budget_mib); Gatehouse stopped it and kept none of them", e.budget>>20)
}

// watchBudget stops the run (cancelling its context with errStageFull)
// once its layers outgrow budget. It looks less often as the layers grow,
// so the walk never costs much of the run.
func watchBudget(ctx context.Context, sr *stagedRun, budget int64, stop context.CancelCauseFunc) (done func()) {
	if budget <= 0 {
		return func() {}
	}
	quit := make(chan struct{})
	go func() {
		wait := 250 * time.Millisecond
		for {
			select {
			case <-quit:
				return
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			start := time.Now()
			if stagedBytes(sr) > budget {
				stop(errStageFull{budget})
				return
			}
			wait = max(250*time.Millisecond, 10*time.Since(start))
		}
	}()
	return func() { close(quit) }
}

// passThroughNames are build outputs and installs written straight into
// the workspace by a staged run: they are large, made by tools from
// what is tracked, and not checkpointed either.
var passThroughNames = []string{"node_modules", "target", "dist", ".venv", "venv"}

// passThrough lists the session's pass-through directories that exist
// now at a workspace root and hold nothing git tracks (a tracked dist/
// is source, and its deletion is judged like any other).
func (r *Runner) passThrough(st *session.State) []string {
	var out []string
	for _, ws := range st.Workspaces {
		for _, n := range passThroughNames {
			p := filepath.Join(ws, n)
			if fi, err := os.Lstat(p); err != nil || !fi.IsDir() {
				continue
			}
			if heldBy(st).tracked(ws, n) {
				continue
			}
			out = append(out, p)
		}
	}
	return out
}

// killStageFull is the kill reason of a run stopped for its staged size.
const killStageFull sandbox.KillReason = "stage-full"

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
