//go:build !linux

package launch

import (
	"errors"
	"syscall"
)

func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}

// intoCgroup is Linux-only; elsewhere runs have no cgroup.
func intoCgroup(*syscall.SysProcAttr, string) (func(), error) {
	return nil, errors.ErrUnsupported
}
