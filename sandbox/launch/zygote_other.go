//go:build !linux

package launch

import (
	"errors"
	"os"
)

// A zygote exists only on Linux; its backends refuse elsewhere before
// any of this is reached.
func seqpacketPair() ([2]*os.File, error) {
	return [2]*os.File{}, errors.New("a sandbox template needs Linux")
}
