//go:build !linux

package desktop

import "syscall"

func trayAttrs() *syscall.SysProcAttr   { return nil }
func windowAttrs() *syscall.SysProcAttr { return nil }
