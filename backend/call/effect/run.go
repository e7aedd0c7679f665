package effect

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/rmtree"
	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// Run is one staged call's layers in its session's stage root: on a
// backend that can stage (bwrap), a mutating command runs against an
// overlay of each workspace, so it changes nothing there, and when it
// ends its upper layers are its exact change set. No walk of the
// workspace happens on the way, so a call costs the same in a monorepo
// as in a toy repository.
type Run struct {
	Root string // the session's stage root
	Dir  string // the call's directory in it
	// Since is when the run began: a workspace path changed later was
	// changed by someone else.
	Since       time.Time
	Workspaces  []string
	PassThrough []string
}

// NewRun makes a call's empty layers, one upper and work directory a
// workspace; passThrough are directories written straight through.
func NewRun(root, callID string, workspaces, passThrough []string) (*Run, error) {
	r := &Run{Root: root, Dir: callID, Since: time.Now(), Workspaces: workspaces, PassThrough: passThrough}
	for i := range workspaces {
		for _, d := range []string{r.Upper(i), sandbox.StageWork(root, callID, i)} {
			if err := os.MkdirAll(d, 0o700); err != nil {
				r.Discard()
				return nil, fmt.Errorf("make the staging layers: %w", err)
			}
		}
	}
	return r, nil
}

// Upper is workspace i's upper layer.
func (r *Run) Upper(i int) string { return sandbox.StageUpper(r.Root, r.Dir, i) }

// Uppers are every workspace's upper layer, in order.
func (r *Run) Uppers() []string {
	out := make([]string, len(r.Workspaces))
	for i := range out {
		out[i] = r.Upper(i)
	}
	return out
}

// Discard removes the run's layers, whose overlay work directories (and
// whatever the command made unreadable) os.RemoveAll cannot get into.
func (r *Run) Discard() { _ = rmtree.Under(r.Root, r.Dir) }

// Unshare removes from upper layer i every file that has another name.
// Apply links the staged files into the workspace, and unlinking the
// layer's name moves the change time of the inode the workspace now
// names, which a later run's conflict check reads (changedSince): it must
// happen before this run's answer, so that the rest of the layers can go
// after it. Every such file, not only the applied ones: a conflict the
// apply skipped may be a second name of a file it linked. Through
// os.Root, as the command wrote the layer.
func (r *Run) Unshare(i int) {
	root, err := os.OpenRoot(r.Upper(i))
	if err != nil {
		return
	}
	defer root.Close()
	_ = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Nlink > 1 {
				_ = root.Remove(p)
			}
		}
		return nil
	})
}

// Sets reads each workspace's change set from its upper layer.
func (r *Run) Sets() ([]Set, error) {
	sets := make([]Set, len(r.Workspaces))
	for i, ws := range r.Workspaces {
		s, err := Read(r.Upper(i), ws)
		if err != nil {
			return nil, err
		}
		sets[i] = s
	}
	return sets, nil
}

// Bytes is what the run's layers hold now.
func (r *Run) Bytes() int64 {
	var n int64
	_ = filepath.WalkDir(filepath.Join(r.Root, r.Dir), func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// ErrNotStaged: the sandbox could not mount the overlays, and the command
// did not start.
var ErrNotStaged = errors.New("the sandbox could not stage the run")

// ErrFull stops a staged run that wrote more than its budget.
type ErrFull struct{ Budget int64 }

func (e ErrFull) Error() string {
	return fmt.Sprintf("the command wrote more than %d MiB of staged changes, the checkpoint budget ([snapshots] budget_mib); Gatehouse stopped it and kept none of them", e.Budget>>20)
}

// KillFull is the kill reason of a run stopped for its staged size.
const KillFull sandbox.KillReason = "stage-full"

// WatchBudget stops the run (cancelling its context with ErrFull) once
// its layers outgrow budget. It looks less often as the layers grow, so
// the walk never costs much of the run.
func (r *Run) WatchBudget(ctx context.Context, budget int64, stop context.CancelCauseFunc) (done func()) {
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
			if r.Bytes() > budget {
				stop(ErrFull{budget})
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

// PassThrough lists the pass-through directories that exist now at a
// workspace root and hold nothing git tracks (a tracked dist/ is source,
// and its deletion is judged like any other); tracked answers that.
func PassThrough(workspaces []string, tracked func(ws, name string) bool) []string {
	var out []string
	for _, ws := range workspaces {
		for _, n := range passThroughNames {
			p := filepath.Join(ws, n)
			if fi, err := os.Lstat(p); err != nil || !fi.IsDir() {
				continue
			}
			if tracked(ws, n) {
				continue
			}
			out = append(out, p)
		}
	}
	return out
}

// SumBytes is what a run's change sets hold.
func SumBytes(sets []Set) int64 {
	var n int64
	for _, s := range sets {
		n += s.Bytes
	}
	return n
}
