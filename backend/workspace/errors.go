package workspace

import "errors"

// Kinds of failure, for errors.Is. The error text itself is a sentence
// meant for the agent; these let callers branch without parsing it.
var (
	ErrInvalidPath = errors.New("invalid path")
	ErrOutside     = errors.New("path is outside the workspace")
	ErrSymlink     = errors.New("path goes through a symlink")
	ErrNotRegular  = errors.New("not a regular file")
)

// PathError carries a one-sentence message for the agent plus the kind and
// the underlying system error.
type PathError struct {
	Path string
	Msg  string
	Kind error // one of the Err* kinds above, or nil
	Err  error // underlying cause, or nil
}

func (e *PathError) Error() string { return e.Msg }

func (e *PathError) Unwrap() []error {
	var errs []error
	if e.Kind != nil {
		errs = append(errs, e.Kind)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

func pathErr(path string, kind, cause error, msg string) error {
	return &PathError{Path: path, Msg: msg, Kind: kind, Err: cause}
}
