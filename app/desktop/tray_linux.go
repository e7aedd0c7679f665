//go:build linux

package desktop

import "syscall"

// trayAttrs makes the kernel stop the tray if the app dies without
// cleaning up (SIGKILL, crash).
func trayAttrs() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
