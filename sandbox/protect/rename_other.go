//go:build !linux

package protect

import "errors"

// renameNoReplace is Linux-only here; without it placeholders are made
// and removed for each run.
func renameNoReplace(from, to string) error {
	return errors.ErrUnsupported
}
