package initproc

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox/cgroup"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc/caps"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc/notify"
	"github.com/gatehouse-dev/gatehouse/sandbox/proctree"
	"golang.org/x/sys/unix"
)

// Main runs the helper with the arguments after the entry name and
// returns the exit status. On success of the final stage it never
// returns: the target replaces it.
func Main(args []string) int {
	if len(args) == 2 && args[0] == CallInitArg {
		c, err := DecodeCallInit(args[1])
		if err != nil {
			fmt.Fprintf(os.Stderr, "gatehouse sandbox: %v\n", err)
			return ExitSetupFailed
		}
		return callInit(c)
	}
	cfg, ok := mainConfig(args)
	if !ok {
		return ExitSetupFailed
	}
	if cfg.Idle {
		return idle()
	}
	if cfg.Zygote != nil && cfg.Landlock != nil {
		return landlockZygote(cfg)
	}
	if cfg.Zygote != nil {
		return zygote(cfg)
	}
	if cfg.Supervise && cfg.ForkTarget {
		return superviseForked(cfg)
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
	err := confineAndExec(cfg)
	if errors.Is(err, errNoRequest) {
		return ExitSetupFailed
	}
	fmt.Fprintf(os.Stderr, "gatehouse sandbox: %v\n", err)
	return ExitSetupFailed
}

// confineAndExec applies rlimits and Landlock to this process and execs
// the target. A helper started ahead of the call applies Landlock first,
// then waits for the Request. It returns only on failure.
func confineAndExec(cfg Config) error {
	// Capabilities and the bounding set belong to a thread, and exec must
	// come from the thread that dropped them.
	runtime.LockOSThread()
	if cfg.NotifyFD > 0 {
		// The target never holds the way to the supervisor; unused, it
		// closes at exec and the supervisor stops waiting.
		syscall.CloseOnExec(cfg.NotifyFD)
	}
	if cfg.Landlock != nil {
		if err := applyLandlock(*cfg.Landlock); err != nil {
			return err
		}
	}
	env := os.Environ()
	var dir string
	var req Request
	netCfg := cfg.Net
	var back func(fds []int) error
	if cfg.RequestFD > 0 {
		_ = warmRequestDecoder() // a failure costs only the time it would save
		r, f, err := readRequest(cfg.RequestFD)
		if err != nil {
			return err
		}
		defer f.Close()
		req = r
		cfg.Path, cfg.Argv, cfg.Rlimits = req.Path, req.Argv, req.Rlimits
		env, dir, netCfg = req.Env, req.Dir, req.Net
		back = sendOnFD(int(f.Fd()))
	}
	if len(req.Uncreatable) > 0 || cfg.Mounts != nil && len(cfg.Mounts.Uncreatable) > 0 {
		return errors.New("this sandbox cannot keep protected names from being created without placeholders; gatehouse asked the wrong helper")
	}
	if err := confineNetEarly(netCfg, back); err != nil {
		return err
	}
	if cfg.Mounts != nil {
		if err := nestMounts(*cfg.Mounts); err != nil {
			return err
		}
		// Entered only now, inside the overlays: a directory entered
		// before them would be the workspace itself.
		if dir = cfg.Mounts.Dir; dir == "" {
			dir = "/"
		}
	} else if err := mountRequest(req); err != nil {
		return err
	}
	for _, r := range cfg.Rlimits {
		lim := unix.Rlimit{Cur: r.Cur, Max: r.Max}
		if err := unix.Setrlimit(r.Resource, &lim); err != nil {
			return fmt.Errorf("set rlimit %d: %w", r.Resource, err)
		}
	}
	if cfg.DropCaps {
		if err := caps.DropAll(); err != nil {
			return err
		}
	}
	// After the drop, so the target's own permissions decide.
	if dir != "" {
		if err := os.Chdir(dir); err != nil {
			return fmt.Errorf("enter working directory: %w", err)
		}
	}
	if cfg.Terminal {
		if err := notify.ApplyTerminal(); err != nil {
			return err
		}
	}
	if err := confineNetLast(netCfg, cfg.NotifyFD); err != nil {
		return err
	}
	if cfg.GuardFD > 0 {
		// Last: from here on this thread's creating calls wait for the
		// supervisor.
		if err := notify.HandGuard(cfg.GuardFD); err != nil {
			return err
		}
	}
	err := syscall.Exec(cfg.Path, cfg.Argv, env)
	return fmt.Errorf("exec %s: %w", cfg.Path, err)
}

// joinCgroupFD joins the cgroup whose procs file is open at fd (none
// when 0), before this process starts anything, so every process of the
// run is in it. The daemon opened the file: cgroup v1 checks the
// opener's credentials, and the cgroup filesystem is out of a
// sandbox's sight.
func joinCgroupFD(fd int) error {
	if fd == 0 {
		return nil
	}
	f := os.NewFile(uintptr(fd), "cgroup.procs")
	if f == nil {
		return fmt.Errorf("join the run's cgroup: no descriptor %d", fd)
	}
	defer f.Close()
	if _, err := f.WriteString("0"); err != nil {
		return fmt.Errorf("join the run's cgroup: %w", err)
	}
	return nil
}

// readRequest reads the call's Request from a unix socket: the daemon
// shuts its side for writing after the Request, and closes it unwritten
// when the sandbox is not needed. The socket stays open for the way back
// (the proxy's listening socket) until the caller closes it.
func readRequest(fd int) (Request, *os.File, error) {
	f := os.NewFile(uintptr(fd), "request")
	b, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return Request{}, nil, fmt.Errorf("read request: %w", err)
	}
	if len(b) == 0 {
		f.Close()
		return Request{}, nil, errNoRequest
	}
	req, err := DecodeRequest(b)
	if err != nil {
		f.Close()
		return req, nil, fmt.Errorf("decode request (is the helper older than gatehouse? reinstall both): %w", err)
	}
	if req.Path == "" || len(req.Argv) == 0 {
		f.Close()
		return req, nil, fmt.Errorf("request has no program")
	}
	// The target must not inherit the way back to the daemon.
	syscall.CloseOnExec(fd)
	return req, f, nil
}

// errNoRequest means the sandbox was discarded before use.
var errNoRequest = errors.New("no request: sandbox discarded")

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
	next.Supervise, next.CgroupProcs, next.StatusFD, next.Connect = false, "", 0, ""
	env := os.Environ()
	files := []uintptr{0, 1, 2}
	var dir string
	// hangup fires when the daemon is gone or wants the run stopped.
	var hangup <-chan struct{}
	var call *receivedCall
	if cfg.Connect != "" {
		if err := hideFromRuns(); err != nil {
			fmt.Fprintf(os.Stderr, "gatehouse sandbox: %v\n", err)
			return ExitSetupFailed
		}
		var err error
		call, err = receiveCall(cfg.Connect)
		if err != nil {
			fmt.Fprintf(os.Stderr, "gatehouse sandbox: %v\n", err)
			return ExitSetupFailed
		}
		defer call.conn.Close()
		status = call.status
		files = []uintptr{call.stdio[0].Fd(), call.stdio[1].Fd(), call.stdio[2].Fd()}
		path, err := lookPath(call.req.Argv[0], call.req.Env)
		if err != nil {
			fmt.Fprintf(call.stdio[2], "gatehouse: executable file %s not found\n", call.req.Argv[0])
			return report(status, Status{Exit: 127})
		}
		next.Path, next.Argv, next.Rlimits = path, call.req.Argv, call.req.Rlimits
		env, dir = call.req.Env, call.req.Dir
		if n := call.req.Net; n != nil {
			// The proxy's socket goes back on the call's connection; the
			// target's stage only installs the filter.
			if err := confineNetEarly(n, sendOn(call.conn)); err != nil {
				return report(status, Status{Exit: ExitSetupFailed, Error: err.Error()})
			}
			last := *n
			last.Listen, last.HostPorts = "", nil
			next.Net = &last
		}
		hangup = call.hangup()
	}
	if cfg.RequestFD > 0 {
		// The target's stage reads the Request, as fd 3.
		files = append(files, uintptr(cfg.RequestFD))
		next.RequestFD = 3
	}
	connects, connectsChild := -1, -1
	if call == nil && cfg.Landlock != nil {
		// The host's namespace (Landlock): the target's stage may hand this
		// process the connects to decide.
		pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return report(status, Status{Exit: ExitSetupFailed, Error: fmt.Sprintf("connect supervision: %v", err)})
		}
		connects, connectsChild = pair[0], pair[1]
		next.NotifyFD = len(files)
		files = append(files, uintptr(pair[1]))
		// Landlock does not stop a process holding CAP_SYS_PTRACE from
		// reading another sandbox's environment, nor CAP_SYS_MODULE from
		// loading a module: a command run by root keeps no capability.
		// (Another user holds none to drop, and may not drop the
		// bounding set.)
		next.DropCaps = os.Geteuid() == 0
	}
	var sys *syscall.SysProcAttr
	if call != nil && needsNamespace(call.req) {
		m := callMounts(call.req)
		// Entered by the helper once its mounts are made.
		m.Dir, dir = dir, ""
		next.Mounts, next.DropCaps = &m, true
		sys = nestedAttr()
	}
	guardSock := -1
	if call != nil && len(call.req.Uncreatable) > 0 {
		// The target's stage hands this process its creating calls.
		guard, err := notify.StartGuard(call.req.Uncreatable, next.DropCaps)
		if err != nil {
			return report(status, Status{Exit: ExitSetupFailed, Error: fmt.Sprintf("start the creation guard: %v", err)})
		}
		pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return report(status, Status{Exit: ExitSetupFailed, Error: fmt.Sprintf("creation guard: %v", err)})
		}
		guardSock = pair[1]
		next.GuardFD = len(files)
		files = append(files, uintptr(pair[1]))
		defer func() {
			if guardSock >= 0 {
				unix.Close(guardSock)
			}
		}()
		go guard.Receive(pair[0])
	}
	enc, err := next.Encode()
	if err != nil {
		if connects >= 0 {
			unix.Close(connects)
			unix.Close(connectsChild)
		}
		return report(status, Status{Exit: ExitSetupFailed, Error: err.Error()})
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP)
	if cfg.Terminal {
		// The terminal's Ctrl-C is the target's to handle, as unconfined:
		// caught and dropped here, not ignored, since an ignored signal
		// would stay ignored across the target's exec.
		drop := make(chan os.Signal, 4)
		signal.Notify(drop, syscall.SIGINT, syscall.SIGQUIT)
		go func() {
			for range drop {
			}
		}()
	} else {
		signal.Notify(sigs, syscall.SIGINT)
	}
	mainPid, err := syscall.ForkExec("/proc/self/exe", []string{os.Args[0], Entry, enc}, &syscall.ProcAttr{
		Env:   env,
		Dir:   dir,
		Files: files,
		Sys:   sys,
	})
	if cfg.RequestFD > 0 {
		_ = syscall.Close(cfg.RequestFD)
	}
	if guardSock >= 0 {
		unix.Close(guardSock) // the target's stage holds its own
		guardSock = -1
	}
	if connects >= 0 {
		unix.Close(connectsChild)
		if err == nil {
			go notify.ServeConnects(connects)
		} else {
			unix.Close(connects)
		}
	}
	if err != nil {
		if call != nil {
			call.closeStdio()
		}
		if sys != nil {
			return report(status, Status{Exit: ExitSetupFailed, Error: NestFailed + ": " + err.Error()})
		}
		return report(status, Status{Exit: ExitSetupFailed, Error: err.Error()})
	}
	// Only the run holds its stdio now, so the daemon sees EOF as soon as
	// the run's processes are gone, without waiting for this one to exit.
	if call != nil {
		call.closeStdio()
	} else if null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0); err == nil {
		for fd := 0; fd <= 2; fd++ {
			_ = unix.Dup2(int(null.Fd()), fd)
		}
		null.Close()
	}

	return watchRun(cfg, mainPid, sigs, hangup, status)
}

// watchRun reaps the run as its subreaper until nobody is left, and
// reports how mainPid, the target, ended: once it is over everything it
// left behind is killed, as a PID namespace would; a signal or hangup
// asks the whole tree to end (SIGTERM, then SIGKILL after the grace).
func watchRun(cfg Config, mainPid int, sigs <-chan os.Signal, hangup <-chan struct{}, status *os.File) int {
	self := os.Getpid()
	reap := make(chan reaped, 64)
	go func() {
		defer close(reap)
		for {
			pid, ws, err := reapOne(0)
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
	// stop asks the run to end (SIGTERM to the whole tree), once, and
	// starts the wait before SIGKILL.
	stop := func() {
		if grace != nil {
			return
		}
		_ = proctree.Signal(self, syscall.SIGTERM, false)
		g := cfg.Grace
		if g <= 0 {
			g = 2 * time.Second
		}
		grace = time.After(g)
	}
	for {
		select {
		case <-hangup:
			hangup = nil
			stop()
		case <-sigs:
			stop()
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
				final = exitStatus(r.ws)
				// The run is over when its main process is: like a PID
				// namespace, take everything it left behind with it. Most
				// runs leave nothing, and looking through /proc for what
				// they left costs more than the run: the kernel flushes
				// what was looked up there when this process is reaped.
				if hasChildren() {
					final.Left = leftRunning(self)
					_ = proctree.KillDescendants(self)
				}
			}
		}
	}
}

// hasChildren reports whether this process has a child, running or
// not: with none, it has no descendant either (an orphan is given to its
// nearest subreaper, this one, only from below it).
func hasChildren() bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT|unix.WALL, nil)
	return !errors.Is(err, unix.ECHILD)
}

// reapOne waits for any child, through interruptions; ECHILD says none
// is left. With WNOHANG in options, pid 0 says none has exited yet.
func reapOne(options int) (int, syscall.WaitStatus, error) {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, options, nil)
		if !errors.Is(err, syscall.EINTR) {
			return pid, ws, err
		}
	}
}

// exitStatus is how a reaped process ended.
func exitStatus(ws syscall.WaitStatus) Status {
	if ws.Signaled() {
		return Status{Exit: -1, Signal: int(ws.Signal())}
	}
	return Status{Exit: ws.ExitStatus()}
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
