// Package sentence is an error a person reads as one plain sentence,
// with the error behind it kept for errors.Is and As, and for the logs.
package sentence

// Error is what its sentence says; Unwrap gives the cause.
type Error struct {
	Sentence string
	Cause    error
}

func (e *Error) Error() string { return e.Sentence }
func (e *Error) Unwrap() error { return e.Cause }

// New is the Error saying s, caused by cause.
func New(s string, cause error) error { return &Error{Sentence: s, Cause: cause} }
