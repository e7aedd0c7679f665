package call

import (
	"context"
	"errors"
	"fmt"

	"github.com/gatehouse-dev/gatehouse/backend/approval"
	"github.com/gatehouse-dev/gatehouse/backend/db"
	"github.com/gatehouse-dev/gatehouse/backend/session"
	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// toolError is a failure the model should read as it is: one plain
// sentence that says what happened and what to do. Every other error is
// internal, and the model never sees its chain (see forAgent).
type toolError struct {
	msg   string
	cause error // for the log only
}

func (e *toolError) Error() string { return e.msg }
func (e *toolError) Unwrap() error { return e.cause }

// Errorf is an error the model reads as it is: one plain sentence that
// says what happened and what to do.
func Errorf(format string, a ...any) error { return &toolError{msg: fmt.Sprintf(format, a...)} }

// toolErrorf is Errorf keeping the underlying cause for the log.
func toolErrorf(cause error, format string, a ...any) error {
	return &toolError{msg: fmt.Sprintf(format, a...), cause: cause}
}

// forAgent is the one place an error becomes what the model reads. Errors
// meant for it pass as they are; anything else is an internal failure, so
// the model gets one plain sentence with the call id and the log keeps the
// detail. The result is redacted by the caller.
func (r *Runner) forAgent(c *InFlight, err error) string {
	var te *toolError
	var se *sandbox.SpecError
	var tm *approval.TooManyError
	switch {
	case errors.As(err, &te):
		return te.msg
	case errors.As(err, &tm):
		return upper(tm.Error()) + "."
	case errors.Is(err, session.ErrKilled), errors.Is(err, session.ErrNotActive):
		return rootMessage(err)
	case errors.Is(err, context.Canceled):
		return "The call was cancelled before it finished."
	case errors.As(err, &se):
		return specMessage(se)
	case db.IsStorageFault(err):
		// A fault the person can fix, in one sentence without driver detail.
		return storageMessage(err)
	}
	r.deps.Logger.Error("tool call failed", "call", c.ID, "session", c.Session(), "tool", c.Req.Tool, "err", err)
	return fmt.Sprintf("Gatehouse hit an internal problem with this call (%s) and did not finish it; the person can find the details in Gatehouse's log. Do not retry it unchanged.", c.ID)
}

// rootMessage is the sentinel's own sentence, without wrapping prefixes.
func rootMessage(err error) string {
	for _, s := range []error{session.ErrKilled, session.ErrNotActive} {
		if errors.Is(err, s) {
			return s.Error()
		}
	}
	return err.Error()
}

// specMessage explains a request the sandbox refused before running it.
func specMessage(se *sandbox.SpecError) string {
	switch {
	case errors.Is(se.Err, sandbox.ErrNotFound):
		return fmt.Sprintf("%s: the program was not found in the sandbox.", se.Value)
	case errors.Is(se.Err, sandbox.ErrOutsideWorkspace), errors.Is(se.Err, sandbox.ErrPathEscape):
		return fmt.Sprintf("%s %q is outside the workspace; use a path inside it.", se.Field, se.Value)
	}
	return fmt.Sprintf("The sandbox refused this command: %v.", se)
}

// panicError is a panic in a tool call, caught so that the agent gets an
// answer and the daemon keeps running.
type panicError struct {
	value any
	stack []byte
}

func (e *panicError) Error() string { return fmt.Sprintf("panic: %v", e.value) }

// storageMessage is the plain sentence of a storage fault.
func storageMessage(err error) string {
	for _, k := range []error{db.ErrDiskFull, db.ErrReadOnly, db.ErrDiskIO} {
		if errors.Is(err, k) {
			return k.Error()
		}
	}
	return "Gatehouse's disk reported a problem; the person can check its free space."
}

// auditProblem says why an audit row could not be written.
func auditProblem(err error) string {
	if db.IsStorageFault(err) {
		return storageMessage(err)
	}
	return "see Gatehouse's log for the detail."
}

// upper capitalises a sentence's first letter.
func upper(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
