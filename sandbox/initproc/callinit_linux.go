package initproc

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"syscall"

	"github.com/gatehouse-dev/gatehouse/sandbox/initproc/caps"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc/notify"
	"golang.org/x/sys/unix"
)

// callInit is the first process of a run a zygote started, and the run's
// PID 1 for as long as it lasts. While the sandbox waits for its call it
// makes the run's namespaces its own (setupCall); when the call comes it
// makes the call's mounts, then starts the target from a thread that has
// given up every capability and carries the network filter, and stays to
// reap. One process where a sandbox of its own took two (bwrap's init and
// the helper that became the target): a Go program's start is most of a
// short call's cost.
//
// It handles no signal: the daemon asks a run to stop by signalling the
// processes below it (terminate in launch), and kills it with SIGKILL,
// which takes the whole PID namespace with it.
func callInit(c CallInit) int {
	// Capabilities, no_new_privs and the seccomp filter belong to a
	// thread, and the target is forked from the thread that dropped them.
	runtime.LockOSThread()
	// A garbage collection would start threads that RLIMIT_NPROC, set for
	// the target on this whole process, could refuse; the heap stays small.
	debug.SetGCPercent(-1)
	var status *os.File
	if c.StatusFD > 2 {
		syscall.CloseOnExec(c.StatusFD)
		status = os.NewFile(uintptr(c.StatusFD), "status")
	}
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "gatehouse sandbox: %v\n", err)
		return report(status, Status{Exit: ExitSetupFailed, Error: err.Error()})
	}
	if err := hideFromRuns(); err != nil {
		return fail(err)
	}
	if err := setupCall(c.Setup); err != nil {
		return fail(err)
	}
	// What the call would otherwise wait for, made now.
	_ = warmRequestDecoder() // a failure costs only the time it would save
	var empty emptyTree
	if err := empty.make(); err != nil {
		return fail(err)
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return fail(err)
	}
	if err := caps.DropBounding(); err != nil {
		return fail(err)
	}
	notify.Warm()
	startedMsg, err := json.Marshal(Status{Started: true})
	if err != nil {
		return fail(err)
	}
	threads := ownThreads()

	req, f, err := readRequest(c.RequestFD)
	if errors.Is(err, errNoRequest) {
		return report(status, Status{Exit: ExitSetupFailed})
	}
	if err != nil {
		return fail(err)
	}
	pid, err := startTarget(req, f, &empty, threads, func() error {
		if status == nil {
			return nil
		}
		_, err := status.Write(append(startedMsg, '\n'))
		return err
	})
	f.Close()
	if errors.Is(err, errStage) {
		// Said on stderr with the run's nonce, which the daemon checks
		// before it runs the command again unstaged.
		fmt.Fprintf(os.Stderr, "gatehouse sandbox: %v\n", err)
		return report(status, Status{Exit: ExitSetupFailed})
	}
	if err != nil {
		return fail(err)
	}
	// Only the target holds the run's output now: the daemon sees EOF
	// once the run's processes are gone.
	for fd := 0; fd <= 2; fd++ {
		_ = unix.Dup2(int(null.Fd()), fd)
	}
	res := reapRun(pid)
	// After: closing the empty tree dismantles a tmpfs.
	null.Close()
	empty.close()
	return report(status, res)
}

// startTarget makes the call's mounts (covering with empty) and starts
// its target, confined: rlimits on this process, raised by its threads
// (the target inherits them), then capabilities, no_new_privs, the
// network filter and, for a run that may not create protected names,
// the creation guard's filter on this thread, which forks it once
// starting has told the daemon.
func startTarget(req Request, f *os.File, empty *emptyTree, threads uint64, starting func() error) (int, error) {
	if err := confineNetEarly(req.Net, sendOnFD(int(f.Fd()))); err != nil {
		return 0, err
	}
	if err := mountRequestWith(req, empty); err != nil {
		return 0, err
	}
	// The run's mount namespace is its own copy of the zygote's (spawnRun).
	if err := sealRoot(); err != nil {
		return 0, err
	}
	var guard *notify.Guard
	if len(req.Uncreatable) > 0 {
		var err error
		if guard, err = notify.StartGuard(req.Uncreatable, true); err != nil {
			return 0, fmt.Errorf("start the creation guard: %w", err)
		}
		threads = ownThreads() + notify.GuardSlack
	}
	for _, r := range targetRlimits(req.Rlimits, threads) {
		lim := unix.Rlimit{Cur: r.Cur, Max: r.Max}
		if err := unix.Setrlimit(r.Resource, &lim); err != nil {
			return 0, fmt.Errorf("set rlimit %d: %w", r.Resource, err)
		}
	}
	// The bounding set is empty already (callInit).
	if err := caps.Clear(); err != nil {
		return 0, err
	}
	if err := confineNetLast(req.Net, 0); err != nil {
		return 0, err
	}
	if guard != nil {
		// Last, on the thread that forks the target: from here on this
		// thread's own creating calls would wait for the guard.
		l, err := notify.InstallGuardFilter()
		if err != nil {
			return 0, err
		}
		guard.Serve(l)
	}
	if err := starting(); err != nil {
		return 0, fmt.Errorf("tell gatehouse the command starts: %w", err)
	}
	pid, err := forkTarget(req, &syscall.SysProcAttr{Setsid: true})
	if err == nil {
		// The reserve above the target's process limit is this process's
		// alone now.
		_ = raiseOwnProcessLimit()
	}
	return pid, err
}

// forkTarget forks the Request's target from the calling thread, with the
// run's stdio, in its directory, and says which of the two failed when
// it could not start.
func forkTarget(req Request, sys *syscall.SysProcAttr) (int, error) {
	pid, err := syscall.ForkExec(req.Path, req.Argv, &syscall.ProcAttr{
		Dir:   req.Dir,
		Env:   req.Env,
		Files: []uintptr{0, 1, 2},
		Sys:   sys,
	})
	if err != nil {
		if req.Dir != "" {
			if _, serr := os.Stat(req.Dir); serr != nil {
				return 0, fmt.Errorf("enter working directory: %w", serr)
			}
		}
		return 0, fmt.Errorf("exec %s: %w", req.Path, err)
	}
	return pid, nil
}

// reapRun waits for the target, then ends whatever it left behind (every
// other process of the PID namespace), and returns once all are reaped:
// nothing of the run writes after its status.
func reapRun(target int) Status {
	var final Status
	done := false
	for {
		pid, ws, err := reapOne(0)
		if err != nil {
			if !done {
				return Status{Exit: ExitSetupFailed, Error: "target vanished"}
			}
			return final // ECHILD: nobody left
		}
		if pid == target && !done {
			done = true
			final = exitStatus(ws)
			if hasChildren() {
				// Orphans come to PID 1: the target left something running.
				final.Left = leftRunning(os.Getpid())
			}
			// PID 1 signals every other process of its namespace.
			_ = syscall.Kill(-1, syscall.SIGKILL)
		}
	}
}
