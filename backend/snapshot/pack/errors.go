package pack

import (
	"errors"
	"fmt"
	"syscall"
)

// Sentinel errors; package snapshot re-exports them under its own names
// (ErrMissingObject, ErrCorruptObject, ErrNoSpace), so they are one value.
var (
	ErrMissing = errors.New("snapshot data is missing")
	ErrCorrupt = errors.New("snapshot data is corrupt")
	ErrNoSpace = errors.New("no space left for snapshots")
)

// MissingError names an object the store lacks. Package snapshot turns it
// into its MissingObjectError, which can also name the workspace path; the
// text is that error's without a path, because an error from a sweep
// reaches people as it is.
type MissingError struct{ Key Key }

func (e *MissingError) Error() string {
	return fmt.Sprintf("snapshot object %s is missing; this checkpoint cannot be restored, pick a newer one", short(e.Key))
}
func (e *MissingError) Unwrap() error { return ErrMissing }

// NoSpaceError reports that the disk holding the store filled up.
type NoSpaceError struct {
	Op  string
	Err error
}

func (e *NoSpaceError) Error() string {
	return fmt.Sprintf("the disk holding snapshots is full (%s); free some space or lower the snapshot budget", e.Op)
}
func (e *NoSpaceError) Unwrap() []error { return []error{ErrNoSpace, e.Err} }

// ClassifyIO turns disk-full errnos into NoSpaceError so callers can match
// ErrNoSpace whatever step failed. It is exported because every writer of
// the snapshot directory (packs here; index, journal and caches in package
// snapshot) fills the same disk.
func ClassifyIO(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return &NoSpaceError{Op: op, Err: err}
	}
	return fmt.Errorf("%s: %w", op, err)
}
