package snapshot

import (
	"errors"
	"fmt"

	"github.com/gatehouse-dev/gatehouse/backend/snapshot/pack"
)

// Sentinel errors; match them with errors.Is.
var (
	ErrNotFound         = errors.New("checkpoint not found")
	ErrWrongSession     = errors.New("checkpoint belongs to another session")
	ErrWorkspaceMissing = errors.New("workspace is missing")
	ErrMissingObject    = pack.ErrMissing // one value with the object store's, so its errors match
	ErrCorruptObject    = pack.ErrCorrupt
	ErrNoSpace          = pack.ErrNoSpace
	ErrUnreadable       = errors.New("file is unreadable")
	ErrTooLarge         = errors.New("file is larger than the snapshot size cap")
	ErrSpecialFile      = errors.New("file is not a regular file, symlink or directory")
	ErrPlanStale        = errors.New("workspace changed since the rollback preview")
	ErrBadRequest       = errors.New("bad snapshot request")
	ErrClosed           = errors.New("snapshot store is closed")
)

// Problem says in a few words why a checkpoint failed, for the person
// or the model; the log keeps the detail.
func Problem(err error) string {
	switch {
	case errors.Is(err, ErrNoSpace):
		return "the disk holding Gatehouse's checkpoints is full; free space there, or lower [snapshots] budget_mib in the config"
	case errors.Is(err, ErrWorkspaceMissing):
		return err.Error()
	}
	return "see Gatehouse's log for the detail"
}

// WorkspaceMissingError says a checkpointed root no longer exists where it was.
type WorkspaceMissingError struct{ Root string }

func (e *WorkspaceMissingError) Error() string {
	return fmt.Sprintf("workspace %s no longer exists; if it was moved, move it back or start a new session there", e.Root)
}
func (e *WorkspaceMissingError) Unwrap() error { return ErrWorkspaceMissing }

// MissingObjectError names an object a checkpoint needs but the store lacks.
type MissingObjectError struct {
	Hash Hash
	Path string // workspace path that needed it, when known
}

func (e *MissingObjectError) Error() string {
	if e.Path != "" {
		return fmt.Sprintf("snapshot data for %s (object %s) is missing; this checkpoint cannot be restored, pick a newer one", e.Path, e.Hash.Short())
	}
	return fmt.Sprintf("snapshot object %s is missing; this checkpoint cannot be restored, pick a newer one", e.Hash.Short())
}
func (e *MissingObjectError) Unwrap() error { return ErrMissingObject }

// WrongSessionError rejects a checkpoint id used from another session.
type WrongSessionError struct{ ID, Session, Owner string }

func (e *WrongSessionError) Error() string {
	return fmt.Sprintf("checkpoint %s belongs to another session, not %s; pick a checkpoint from this session", e.ID, e.Session)
}
func (e *WrongSessionError) Unwrap() error { return ErrWrongSession }

// NoSpaceError reports that the disk holding the store filled up. It is
// the object store's type: packs and this package's own files fill the same
// disk (see pack.ClassifyIO).
type NoSpaceError = pack.NoSpaceError

// PathError ties a problem to one workspace file.
type PathError struct {
	Path string
	Err  error
}

func (e *PathError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *PathError) Unwrap() error { return e.Err }
