package initproc

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"sync/atomic"
	"syscall"

	"github.com/gatehouse-dev/gatehouse/sandbox/initproc/caps"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc/notify"
	"golang.org/x/sys/unix"
)

// A Landlock run's supervisor that starts its target itself
// (Config.ForkTarget): one helper start per run where a supervisor and a
// second helper, which confined itself and became the target, took two;
// a Go program's start was most of a back-to-back call's CPU.
//
// Landlock, no_new_privs, the socket filter and the capability sets
// belong to a thread, so one thread of the supervisor takes them all,
// forks the target and exits: the supervisor keeps no thread in the run's
// domain. Its other threads, which reap, report and decide the run's
// connects, are never confined, as the supervisor was before, so
// Landlock's scopes keep the run from signalling or tracing them. Until
// that thread is gone the run could signal it (a thread of the same
// domain), which would kill the supervisor: the zygote that started it
// then kills what it left (landlockZygote), so the run still ends whole.
// The supervisor is not dumpable, so no run can trace or read it through
// that thread either.

// supervisorThreads is room in the run's RLIMIT_NPROC for threads the
// supervisor starts between the daemon's count of the user's tasks and
// the fork: the count is the user's, the supervisor's threads in it.
const supervisorThreads = 4

// forked is what the confining thread reports: the target's pid, or why
// there is none.
type forked struct {
	pid int
	err error
}

// startGate decides, once, whether a supervisor's call starts or the
// supervisor stops unused: a stop races the thread that takes the call,
// and exactly one wins, so a call is never both started and reported
// unused. The stop is a signal (Pdeathsig, when the zygote dies) that may
// not be handled yet when the call arrives, so taking the call also
// checks that the zygote is still the parent.
type startGate struct {
	state  atomic.Int32
	zygote int // the zygote's pid; 0 when no zygote started this one
}

const (
	waiting  int32 = iota
	starting       // the thread took the call: the target starts
	stopping       // the supervisor was told to stop first: nothing runs
)

// errStopped: the confining thread lost to a stop.
var errStopped = errors.New("stopped before the call started")

// orphaned reports whether the zygote is gone (even before this started).
func (g *startGate) orphaned() bool { return g.zygote != 0 && os.Getppid() != g.zygote }

// start reports whether the call may start; no stop wins after it.
func (g *startGate) start() bool {
	return !g.orphaned() && g.state.CompareAndSwap(waiting, starting)
}

// stop reports whether the supervisor stops with nothing started.
func (g *startGate) stop() bool { return g.state.CompareAndSwap(waiting, stopping) }

// superviseForked is supervise for a Landlock run with ForkTarget.
func superviseForked(cfg Config) int {
	// The first thread never takes the run's confinement: it is the one
	// the process's id names, to signals and /proc.
	runtime.LockOSThread()
	var status *os.File
	if cfg.StatusFD > 2 {
		syscall.CloseOnExec(cfg.StatusFD)
		status = os.NewFile(uintptr(cfg.StatusFD), "status")
	}
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "gatehouse sandbox: %v\n", err)
		return report(status, Status{Exit: ExitSetupFailed, Error: err.Error()})
	}
	home, err := joinRunCgroup(cfg.CgroupFD)
	if err != nil {
		return fail(err)
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fail(fmt.Errorf("subreaper: %w", err))
	}
	if err := hideFromRuns(); err != nil {
		return fail(err)
	}
	// The confining thread hands the run's connects to decide here.
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fail(fmt.Errorf("connect supervision: %w", err))
	}
	go notify.ServeConnects(pair[0])
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)

	gate := &startGate{zygote: cfg.ZygotePID}
	done := make(chan forked, 1)
	go func() { done <- confineAndFork(cfg, pair[1], status, gate, home) }()
	var r forked
	select {
	case r = <-done:
	case sig := <-sigs:
		if gate.stop() {
			// Told to stop while waiting (its zygote died): nothing runs,
			// and the daemon may give the call to another sandbox.
			return report(status, Status{Exit: ExitSetupFailed, Unused: true})
		}
		r = <-done
		sigs <- sig // the target has started: it is the run's to end
	}
	if errors.Is(r.err, errNoRequest) || errors.Is(r.err, errStopped) || r.err != nil && gate.orphaned() {
		// Nothing started (a thread that failed sent no Started): another
		// sandbox may take the call.
		return report(status, Status{Exit: ExitSetupFailed, Unused: true})
	}
	if r.err != nil {
		// As a helper that failed to confine itself said it: on the run's
		// stderr, exiting 125.
		fmt.Fprintf(os.Stderr, "gatehouse sandbox: %v\n", r.err)
		return report(status, Status{Exit: ExitSetupFailed})
	}
	// Only the run holds its stdio now, so the daemon sees EOF as soon as
	// the run's processes are gone, without waiting for this one to exit.
	if null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0); err == nil {
		for fd := 0; fd <= 2; fd++ {
			_ = unix.Dup2(int(null.Fd()), fd)
		}
		null.Close()
	}
	return watchRun(cfg, r.pid, sigs, nil, status)
}

// confineAndFork runs on a thread of its own, which it never gives back:
// the runtime ends a thread whose goroutine exits locked to it. It
// applies the rules, waits for the call, then confines the thread as
// confineAndExec confines a helper (network layer, rlimits, capabilities,
// socket filter, handing connects on connects) and forks the target from
// it, telling the daemon on status first that the command starts.
func confineAndFork(cfg Config, connects int, status *os.File, gate *startGate, home homeCgroup) forked {
	runtime.LockOSThread()
	if unix.Gettid() == unix.Getpid() {
		// The first thread is what the process's id names: it stays
		// unconfined, held here so that another thread takes the run.
		done := make(chan forked, 1)
		go func() { done <- confineAndFork(cfg, connects, status, gate, home) }()
		r := <-done
		runtime.UnlockOSThread()
		return r
	}
	pid, err := confineAndForkLocked(cfg, &connects, status, gate, home)
	if connects >= 0 {
		unix.Close(connects)
	}
	return forked{pid: pid, err: err}
}

func confineAndForkLocked(cfg Config, connects *int, status *os.File, gate *startGate, home homeCgroup) (int, error) {
	if err := applyLandlock(*cfg.Landlock); err != nil {
		return 0, err
	}
	_ = warmRequestDecoder() // a failure costs only the time it would save
	req, f, err := readRequest(cfg.RequestFD)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if len(req.Uncreatable) > 0 {
		return 0, errors.New("this sandbox cannot keep protected names from being created without placeholders; gatehouse asked the wrong helper")
	}
	if err := confineNetEarly(req.Net, nil); err != nil {
		return 0, err
	}
	for _, r := range targetRlimits(req.Rlimits, supervisorThreads) {
		lim := unix.Rlimit{Cur: r.Cur, Max: r.Max}
		if err := unix.Setrlimit(r.Resource, &lim); err != nil {
			return 0, fmt.Errorf("set rlimit %d: %w", r.Resource, err)
		}
	}
	if os.Geteuid() == 0 {
		// Landlock does not stop CAP_SYS_PTRACE from reading another
		// sandbox's environment, nor CAP_SYS_MODULE from loading a module.
		if err := caps.DropAll(); err != nil {
			return 0, err
		}
	}
	// HandConnects closes the socket; any other network leaves it to us.
	handed := req.Net != nil && req.Net.HostNamespace && req.Net.Mode == NetProxy
	err = confineNetLast(req.Net, *connects)
	if handed {
		*connects = -1
	}
	if err != nil {
		return 0, err
	}
	if !gate.start() {
		return 0, errStopped
	}
	if status != nil {
		msg, err := json.Marshal(Status{Started: true})
		if err == nil {
			_, err = status.Write(append(msg, '\n'))
		}
		if err != nil {
			return 0, fmt.Errorf("tell gatehouse the command starts: %w", err)
		}
	}
	// In the supervisor's session, as the helper that became the target
	// was.
	pid, err := forkTarget(req, nil)
	// Born inside the run's cgroup (if it has one), the target keeps it;
	// the supervisor goes, before the run can fill it.
	home.leave()
	if err != nil {
		return 0, err
	}
	// The target has its limit; the rest of the reserve is the
	// supervisor's alone. A failure leaves it the run's limit, as before.
	_ = raiseOwnProcessLimit()
	return pid, nil
}
