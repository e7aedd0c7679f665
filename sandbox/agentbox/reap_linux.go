package agentbox

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// superviseAgent starts the agent as this process's child and stays the
// sandbox's PID 1, as bubblewrap's own first process does; a container
// has no other (podman's --init needs catatonit). An agent that were PID
// 1 itself would ignore every signal it has no handler for (Ctrl-C for a
// plain shell) and leave the orphans its children make as zombies. This
// process reaps them, and exits with the agent's status (128+N for a
// signal), which ends everything else in the sandbox.
//
// The caller has installed the filters on this thread: the agent
// inherits them. Under bubblewrap (pid1 false), which has a PID 1 and
// the terminal's job control, this process stays only to serve the
// creation guard, and leaves a stopped agent stopped.
func superviseAgent(path string, argv []string, pid1 bool) error {
	// The terminal's signals (Ctrl-C, a window change) reach the whole
	// process group, the agent included: they are dropped here. Those
	// sent to this process alone are the agent's.
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs)
	p, err := os.StartProcess(path, argv, &os.ProcAttr{Env: os.Environ(), Files: []*os.File{os.Stdin, os.Stdout, os.Stderr}})
	if err != nil {
		return fmt.Errorf("start %s: %w", path, err)
	}
	go func() {
		for s := range sigs {
			switch s {
			case syscall.SIGTERM, syscall.SIGHUP, syscall.SIGUSR1, syscall.SIGUSR2:
				_ = p.Signal(s)
			}
		}
	}()
	opts := 0
	if pid1 {
		opts = syscall.WUNTRACED
	}
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, opts, nil)
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
