package fsops

import (
	"errors"
	"fmt"
)

// ErrTooLarge marks refusals because of a size bound.
var ErrTooLarge = errors.New("too large")

// opError is a one-sentence message for the agent with a kind for errors.Is.
type opError struct {
	msg  string
	kind error
}

func (e *opError) Error() string { return e.msg }
func (e *opError) Unwrap() error { return e.kind }

func errorf(kind error, format string, args ...any) error {
	return &opError{msg: fmt.Sprintf(format, args...), kind: kind}
}

// Kinds callers can branch on.
var (
	ErrNotFound      = errors.New("old text not found")
	ErrAmbiguous     = errors.New("old text matches more than once")
	ErrBinary        = errors.New("binary file")
	ErrChanged       = errors.New("file changed during the operation")
	ErrBadRequest    = errors.New("bad request")
	ErrSymlinkTarget = errors.New("path is a symlink")
)
