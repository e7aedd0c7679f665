package cli

import (
	"os"
	"syscall"

	"github.com/gatehouse-dev/gatehouse/sandbox/proctree"
	"golang.org/x/sys/unix"
)

// The agent of `gatehouse run` is in this process's process group, so a
// terminal's Ctrl-C, or a shell's `kill -INT %job`, reaches it along with
// this process, which drops its own copy and outlives the agent to report
// its status. A SIGINT or SIGQUIT sent to this process's pid alone (an IDE
// or a process manager that started `gatehouse run` as a plain child and
// stops it with kill -INT) reached nobody else: the agent never saw it.
// relayInterrupt passes such a signal on to the processes the group's
// signal would have reached: those below this one, in its group.

// relayInterrupt hands sig to the agent unless the signal most likely
// went to the whole group already.
func relayInterrupt(sig syscall.Signal) {
	if groupSignalled() {
		return
	}
	pgrp := unix.Getpgrp()
	pids, err := proctree.Descendants(os.Getpid())
	if err != nil {
		return
	}
	for _, pid := range pids {
		// Below this process but in a group of its own (a job the agent
		// started with job control): a terminal would not reach it either.
		if g, err := unix.Getpgid(pid); err == nil && g == pgrp {
			_ = unix.Kill(pid, sig)
		}
	}
}

// groupSignalled reports whether a signal to this process most likely
// went to its whole process group: the group is its terminal's
// foreground (Ctrl-C), or this process leads it (a shell's job, which
// `kill %job` signals whole). Without siginfo, which Go's signal package
// does not give, the sender itself cannot be seen.
func groupSignalled() bool {
	pgrp := unix.Getpgrp()
	if pgrp == os.Getpid() {
		return true
	}
	tty, err := os.Open("/dev/tty")
	if err != nil {
		return false // no controlling terminal: no Ctrl-C
	}
	defer tty.Close()
	fg, err := unix.IoctlGetInt(int(tty.Fd()), unix.TIOCGPGRP)
	return err == nil && fg == pgrp
}
