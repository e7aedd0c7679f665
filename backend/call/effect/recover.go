package effect

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"

	"github.com/gatehouse-dev/gatehouse/backend/rmtree"
)

// journalsDir holds the journals of applies under way; a daemon that
// starts with one there was killed mid-apply (see RecoverStaged).
const journalsDir = "journals"

// JournalPath is where the apply of workspace i of a call keeps its
// journal, in the stage directory.
func JournalPath(stageDir, callID string, i int) string {
	dir := filepath.Join(stageDir, journalsDir)
	_ = os.MkdirAll(dir, 0o700)
	return filepath.Join(dir, callID+"-"+strconv.Itoa(i)+".json")
}

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
		found, err := Recover(ctx, p)
		switch {
		case errors.Is(err, ErrWorkspaceGone):
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
