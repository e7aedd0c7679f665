package launch

import (
	"os"
	"os/exec"
	"syscall"
)

// process is a run's first process as the daemon holds it: a child it
// started, or one a zygote started and handed over as a pidfd.
type process interface {
	// pid is the process's id in the daemon's PID namespace.
	pid() int
	// signal sends sig to the process alone.
	signal(sig syscall.Signal) error
	// wait returns once the process has exited. A process the daemon did
	// not start has no state to give: its status pipe says how it ended.
	wait() (*os.ProcessState, error)
	// gone reports, without waiting, whether the process has exited;
	// false when only wait can tell.
	gone() bool
}

// child is a process the daemon started.
type child struct{ cmd *exec.Cmd }

func (c child) pid() int { return c.cmd.Process.Pid }

func (c child) signal(sig syscall.Signal) error { return c.cmd.Process.Signal(sig) }

func (c child) gone() bool { return false }

func (c child) wait() (*os.ProcessState, error) {
	err := c.cmd.Wait()
	return c.cmd.ProcessState, err
}
