//go:build !linux

package bwrap

import (
	"errors"
	"os"
	"syscall"
)

// bwrap, and so a zygote, exists only on Linux; New refuses the backend
// elsewhere before any of this is reached.

func zygoteAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

func seqpacketPair() ([2]*os.File, error) {
	return [2]*os.File{}, errors.New("the bwrap backend needs Linux")
}
