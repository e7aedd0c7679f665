package initproc

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox/cgroup"
	"github.com/gatehouse-dev/gatehouse/sandbox/proctree"
	"golang.org/x/sys/unix"
)

// Main runs the helper with the arguments after the entry name and
// returns the exit status. On success of the final stage it never
// returns: the target replaces it.
func Main(args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "gatehouse sandbox: the helper takes exactly one argument; it is started by gatehouse itself.")
		return ExitSetupFailed
	}
	cfg, err := Decode(args[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "gatehouse sandbox: %v\n", err)
		return ExitSetupFailed
	}
	if cfg.CgroupProcs != "" {
		if err := cgroup.Join(cfg.CgroupProcs); err != nil {
			fmt.Fprintf(os.Stderr, "gatehouse sandbox: join cgroup: %v\n", err)
			return ExitSetupFailed
		}
	}
	if cfg.Supervise {
		return supervise(cfg)
	}
	err = confineAndExec(cfg)
	fmt.Fprintf(os.Stderr, "gatehouse sandbox: %v\n", err)
	return ExitSetupFailed
}

// confineAndExec applies rlimits and Landlock to this process and execs
// the target. It returns only on failure.
func confineAndExec(cfg Config) error {
	for _, r := range cfg.Rlimits {
		lim := unix.Rlimit{Cur: r.Cur, Max: r.Max}
		if err := unix.Setrlimit(r.Resource, &lim); err != nil {
			return fmt.Errorf("set rlimit %d: %w", r.Resource, err)
		}
	}
	if cfg.Landlock != nil {
		if err := applyLandlock(*cfg.Landlock); err != nil {
			return err
		}
	}
	err := syscall.Exec(cfg.Path, cfg.Argv, os.Environ())
	return fmt.Errorf("exec %s: %w", cfg.Path, err)
}

type reaped struct {
	pid int
	ws  syscall.WaitStatus
}

// supervise runs the next stage as a child and stays as the run's
// subreaper: orphans re-parent to us, so every descendant stays findable
// and killable even after setsid.
func supervise(cfg Config) int {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "gatehouse sandbox: subreaper: %v\n", err)
		return ExitSetupFailed
	}
	var status *os.File
	if cfg.StatusFD > 2 {
		syscall.CloseOnExec(cfg.StatusFD)
		status = os.NewFile(uintptr(cfg.StatusFD), "status")
	}
	next := cfg
	next.Supervise, next.CgroupProcs, next.StatusFD = false, "", 0
	enc, err := next.Encode()
	if err != nil {
		return report(status, Status{Exit: ExitSetupFailed, Error: err.Error()})
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	self := os.Getpid()
	mainPid, err := syscall.ForkExec("/proc/self/exe", []string{os.Args[0], Entry, enc}, &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{0, 1, 2},
	})
	if err != nil {
		return report(status, Status{Exit: ExitSetupFailed, Error: err.Error()})
	}

	reap := make(chan reaped, 64)
	go func() {
		defer close(reap)
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, 0, nil)
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			if err != nil {
				return // ECHILD: nobody left
			}
			reap <- reaped{pid, ws}
		}
	}()

	var (
		final    Status
		mainDone bool
		grace    <-chan time.Time
	)
	for {
		select {
		case <-sigs:
			if grace == nil {
				_ = proctree.Signal(self, syscall.SIGTERM, false)
				g := cfg.Grace
				if g <= 0 {
					g = 2 * time.Second
				}
				grace = time.After(g)
			}
		case <-grace:
			_ = proctree.KillDescendants(self)
		case r, ok := <-reap:
			if !ok {
				if !mainDone {
					final = Status{Exit: ExitSetupFailed, Error: "target vanished"}
				}
				return report(status, final)
			}
			if r.pid == mainPid {
				mainDone = true
				if r.ws.Signaled() {
					final = Status{Exit: -1, Signal: int(r.ws.Signal())}
				} else {
					final = Status{Exit: r.ws.ExitStatus()}
				}
				// The run is over when its main process is: like a PID
				// namespace, take everything it left behind with it.
				_ = proctree.KillDescendants(self)
			}
		}
	}
}

func report(w *os.File, s Status) int {
	if w != nil {
		_ = json.NewEncoder(w).Encode(s)
	}
	if s.Signal != 0 {
		return 128 + s.Signal
	}
	return s.Exit
}
