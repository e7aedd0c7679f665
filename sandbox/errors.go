package sandbox

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error from Run that is due to the Spec wraps one
// of these (via *SpecError) and is returned before anything is executed.
var (
	ErrEmptyArgv        = errors.New("the command is empty")
	ErrNotFound         = errors.New("the program was not found")
	ErrNUL              = errors.New("a value contains a NUL byte")
	ErrOutsideWorkspace = errors.New("the path is outside every workspace")
	ErrUnsafeWorkspace  = errors.New("the workspace is not a safe directory to share")
	ErrPathEscape       = errors.New("the path escapes the workspace")
	ErrBadSpec          = errors.New("the sandbox request is invalid")

	// ErrUnavailable means the backend cannot run on this machine.
	ErrUnavailable = errors.New("sandbox backend unavailable")
	// ErrClosed means the session was closed or killed.
	ErrClosed = errors.New("sandbox session is closed")
	// ErrNotReady means a sandbox built ahead of its call died unused;
	// nothing ran, so a fresh one can be started.
	ErrNotReady = errors.New("sandbox built ahead of time is gone")
)

// SpecError is a rejected Spec or SessionSpec field.
type SpecError struct {
	Field string // "argv[0]", "dir", "workspace", "read_write[2]", ...
	Value string
	Err   error // one of the sentinels above
}

func (e *SpecError) Error() string {
	return fmt.Sprintf("%s %q: %v", e.Field, e.Value, e.Err)
}

func (e *SpecError) Unwrap() error { return e.Err }

func specErr(field, value string, err error) error {
	return &SpecError{Field: field, Value: value, Err: err}
}
