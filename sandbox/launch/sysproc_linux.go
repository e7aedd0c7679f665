package launch

import "syscall"

// Own session (and so own process group, no controlling terminal), and
// die with the daemon.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}
