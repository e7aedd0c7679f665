package cli

import (
	"os"
	"syscall"

	"github.com/gatehouse-dev/gatehouse/sandbox/proctree"
	"golang.org/x/sys/unix"
)

// With a terminal, the agent of `gatehouse run` is in this process's
// process group, so a terminal's Ctrl-C, or a shell's `kill -INT %job`,
// reaches it along with this process, which drops its own copy and
// outlives the agent to report its status. A SIGINT or SIGQUIT sent to
// this process's pid alone reached nobody else: relayInterrupt passes
// such a signal on to the processes the group's signal would have
// reached, those below this one in its group.
//
// Without a terminal (an IDE, a process manager or an SDK started
// `gatehouse run`) no Ctrl-C can come, and whether a signal went to this
// pid alone or to its whole group (kill -INT PID, kill -INT -PGID) cannot
// be told apart without siginfo, which Go's signal package does not
// give: passing it on could deliver it twice, and an agent takes a second
// Ctrl-C as "quit now"; not passing it could deliver it never. So the
// sandbox gets a process group of its own (agentbox.Spec.OwnGroup), every
// such signal comes to this process alone, and it is passed on to that
// group once (passOn).

// hasTerminal reports whether this process has a controlling terminal.
func hasTerminal() bool {
	tty, err := os.Open("/dev/tty")
	if err != nil {
		return false
	}
	tty.Close()
	return true
}

// passOn hands sig to the agent: to the sandbox's own process group
// (group, when it has one), else as relayInterrupt decides.
func passOn(sig syscall.Signal, group int) {
	if group > 0 {
		_ = unix.Kill(-group, sig)
		return
	}
	relayInterrupt(sig)
}

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
