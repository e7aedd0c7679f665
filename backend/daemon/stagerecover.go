package daemon

import (
	"context"
	"fmt"

	"github.com/gatehouse-dev/gatehouse/backend/call/effect"
)

// StageDir holds staged runs' layers and apply journals, in the data dir.
const StageDir = "stage"

// recoverStaged finishes the applies a killed daemon left half done and
// drops every other staged layer (their cards expired with it), before
// the first call. An apply that cannot be finished stops the start: the
// workspace would stay half-applied otherwise.
func (d *Daemon) recoverStaged(ctx context.Context, dir string) error {
	finished, err := effect.RecoverStaged(ctx, dir)
	for _, j := range finished {
		d.logger.Warn("finished an apply a stopped daemon left half done", "journal", j)
		d.Emit(ctx, "stage.recovered", "system", "", map[string]any{"journal": j})
	}
	if err != nil {
		return fmt.Errorf("finish the applies a stopped daemon left half done (the files are in %s): %w", dir, err)
	}
	return nil
}
