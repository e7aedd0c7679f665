//go:build linux

package desktop

import "syscall"

// trayAttrs and windowAttrs make the kernel stop the child if the app dies
// without cleaning up (SIGKILL, crash). The signal follows the thread that
// started the child; Go keeps its threads for the life of the process.
func trayAttrs() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}

func windowAttrs() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
