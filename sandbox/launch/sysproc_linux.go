package launch

import "syscall"

// Own session (and so own process group, no controlling terminal), and
// die with the daemon.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}

// intoCgroup makes the process start in the cgroup at dir (clone3's
// CLONE_INTO_CGROUP, Linux ≥ 5.7 with cgroup v2). close releases the
// directory once the process has started.
func intoCgroup(a *syscall.SysProcAttr, dir string) (close func(), err error) {
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	a.UseCgroupFD, a.CgroupFD = true, fd
	return func() { syscall.Close(fd) }, nil
}
