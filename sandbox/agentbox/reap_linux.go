package agentbox

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// caught are the signals superviseAgent catches: every one the runtime
// would exit or dump its stacks on (the terminal's, SIGPIPE on a closed
// stdout, one sent by kill), those that would stop this process (a
// shell's job control), and those it passes on. The runtime already
// catches and drops the rest (SIGWINCH, SIGALRM, real-time signals, …).
var caught = []os.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGPIPE,
	syscall.SIGABRT, syscall.SIGILL, syscall.SIGTRAP, syscall.SIGBUS, syscall.SIGFPE, syscall.SIGSEGV,
	syscall.SIGSTKFLT, syscall.SIGSYS, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU,
	syscall.SIGUSR1, syscall.SIGUSR2}

// superviseAgent starts the agent as this process's child and stays the
// sandbox's PID 1, as bubblewrap's own first process did: a container
// has no other (podman's --init needs catatonit), and a sandbox whose
// namespaces this process was started in neither. An agent that were
// PID 1 itself would ignore every signal it has no handler for (Ctrl-C
// for a plain shell) and leave the orphans its children make as zombies.
// This process reaps them, and exits with the agent's status (128+N for
// a signal), which ends everything else in the sandbox.
//
// In a container (inContainer), podman passes the signals it gets to
// this process, which sends them on, and no shell's job control reaches
// inside: a stopped agent is continued. Otherwise the person's shell
// stops and continues the agent with `gatehouse run` (the same process
// group), as it did under bubblewrap, and a signal to this process alone
// comes only from the agent's tree: it is dropped.
//
// The caller has installed the filters on this thread: the agent
// inherits them.
func superviseAgent(path string, argv []string, inContainer bool) error {
	// The terminal's signals (Ctrl-C, Ctrl-Z) reach the whole process
	// group, the agent included: they are dropped here, as is any other
	// the runtime would act on. Asking for every signal instead cost a
	// round trip with the runtime's signal thread for each of 65, some
	// 4 ms before the agent could start.
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, caught...)
	p, err := os.StartProcess(path, argv, &os.ProcAttr{Env: os.Environ(), Files: []*os.File{os.Stdin, os.Stdout, os.Stderr}})
	if err != nil {
		return fmt.Errorf("start %s: %w", path, err)
	}
	go func() {
		for s := range sigs {
			switch s {
			case syscall.SIGTERM, syscall.SIGHUP, syscall.SIGUSR1, syscall.SIGUSR2:
				if inContainer {
					_ = p.Signal(s)
				}
			}
		}
	}()
	options := 0
	if inContainer {
		options = syscall.WUNTRACED
	}
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, options, nil)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return fmt.Errorf("wait for %s: %w", path, err)
		case pid != p.Pid:
			continue // an orphan, reaped
		case ws.Stopped():
			// No shell's job control in here would ever continue it:
			// Ctrl-Z must not freeze the agent for good.
			_ = syscall.Kill(0, syscall.SIGCONT)
		case ws.Signaled():
			os.Exit(128 + int(ws.Signal()))
		default:
			os.Exit(ws.ExitStatus())
		}
	}
}
