// Package launch starts a sandboxed run through the initproc helper and
// owns it until it is over: output capture, wall-clock limit, and the
// kill of the whole tree (SIGTERM, grace, SIGKILL) on timeout or cancel.
// The bwrap, landlock and none backends share it.
package launch

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/cgroup"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
	"github.com/gatehouse-dev/gatehouse/sandbox/proctree"
)

// ErrNoProcessLimit refuses a root run whose process count cannot be bounded.
var ErrNoProcessLimit = errors.New("no process limit for this run")

// Command is one run to launch.
type Command struct {
	Backend string
	// Helper is the binary that implements initproc.Entry.
	Helper string
	// Config is handed to the helper; Start fills in cgroup and status.
	Config initproc.Config
	// Env is the helper's environment: the target's, unless the target
	// comes later in a Request.
	Env    []string
	Dir    string
	Limits sandbox.Limits
	Stdin  io.Reader
	Stdout io.Writer // live copies, optional
	Stderr io.Writer
	Logger *slog.Logger
	// Deferred starts the helper ahead of the call with a request pipe at
	// RequestFD; the target is named by the Request given to Exec.
	Deferred bool
	// Cleanup runs once the run is over or discarded.
	Cleanup func()
	// PIDNamespace says every process of the run dies with the helper.
	PIDNamespace bool
	// Proxy and ProxyListener, for Run, are as in Call.
	Proxy         sandbox.Proxy
	ProxyListener net.Listener
}

// RequestFD is the helper's descriptor for the request pipe of a
// deferred Command. The status pipe, when supervising, follows it.
const RequestFD = 3

// Run starts c and waits for it. Cancelling ctx, or the wall limit,
// kills the whole tree and returns a Result with Killed set.
func Run(ctx context.Context, c Command) (sandbox.Result, error) {
	err := ctx.Err()
	var p *Pending
	if err == nil {
		p, err = Start(c)
	}
	if err != nil {
		if c.ProxyListener != nil {
			c.ProxyListener.Close()
		}
		return sandbox.Result{Backend: c.Backend}, err
	}
	return p.Exec(ctx, Call{Limits: c.Limits, Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr, Proxy: c.Proxy, ProxyListener: c.ProxyListener})
}

// Pending is a started helper whose run has not been waited for: with a
// deferred Command, a sandbox built ahead of time and waiting for its
// call.
type Pending struct {
	c     Command
	log   *slog.Logger
	proc  process
	group *cgroup.Group

	stdin          *os.File // write end, nil when not deferred-fed
	stdout, stderr *os.File // read ends
	request        *net.UnixConn
	statusR        *os.File

	done  chan struct{} // closed when the helper has been waited for
	state *os.ProcessState
	// spawned: a Spawner started the run, whose first process reports
	// when the command starts (initproc.Status.Started).
	spawned bool
	waitErr error

	finishOnce sync.Once
}

// A Spawner starts a run's first process where the daemon cannot fork it
// itself: a session's zygote, inside its sandbox (see bwrap). The process
// takes the call's Request on the request descriptor and reports the
// run's Status on the status one; Spawn gets the descriptors and returns
// a pidfd of it.
type Spawner interface {
	Spawn(f SpawnFiles) (pidfd int, err error)
}

// SpawnFiles are a spawned run's descriptors, in the order the zygote
// passes them on (initproc.SpawnRequest): Cgroup, when not nil, is the
// run's cgroup.procs, which its first process joins before anything
// else starts.
type SpawnFiles struct {
	Stdin, Stdout, Stderr, Request, Status *os.File
	Cgroup                                 *os.File
}

// SpawnedInitTasks is room in a spawned run's pids cgroup for its first
// process, which joins the cgroup first and stays as the run's PID 1: a
// Go program with one processor, which runs four threads (five in a run
// that writes the workspace itself: the creation guard's), and room for
// threads the runtime adds while they wait. The target's processes get
// the run's limit on top.
const SpawnedInitTasks = 8

// Start starts the helper for c without waiting for it.
func Start(c Command) (*Pending, error) { return start(c, nil) }

// StartSpawned is Start for a run sp starts: c must be Deferred and
// Supervise (a status comes back), and its Config says nothing more,
// since the spawner configures the run's first process.
func StartSpawned(c Command, sp Spawner) (*Pending, error) {
	if !c.Deferred || !c.Config.Supervise {
		if c.Cleanup != nil {
			c.Cleanup()
		}
		return nil, errors.New("a spawned run waits for its call and reports its status")
	}
	return start(c, sp)
}

func start(c Command, sp Spawner) (_ *Pending, err error) {
	log := c.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p := &Pending{c: c, log: log, done: make(chan struct{})}
	var closeOnFail, childEnds []*os.File
	defer func() {
		for _, f := range childEnds {
			f.Close()
		}
		if err != nil {
			for _, f := range closeOnFail {
				f.Close()
			}
			p.removeGroup()
			if c.Cleanup != nil {
				c.Cleanup()
			}
		}
	}()
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err != nil {
			return nil, nil, fmt.Errorf("create sandbox pipe: %w", err)
		}
		return r, w, nil
	}

	// Root is exempt from RLIMIT_NPROC, so bound root's runs with a cgroup.
	if os.Geteuid() == 0 && c.Limits.Processes > 0 {
		limit := c.Limits.Processes
		if sp != nil {
			limit += SpawnedInitTasks
		}
		g, err := cgroup.New("run-"+randomID(), limit)
		if err != nil {
			// Fail closed: as root, nothing else would bound a fork bomb.
			return nil, fmt.Errorf("%w: running as root, the sandbox bounds a command's processes with a pids cgroup, and it could not make one (%v); run Gatehouse as a normal user, or give it a writable cgroup filesystem", ErrNoProcessLimit, err)
		}
		p.group = g
		if sp == nil {
			// A spawned run's first process gets the file itself (spawn).
			c.Config.CgroupProcs = g.ProcsFile()
		}
	}

	var extra []*os.File
	if c.Deferred {
		ours, theirs, err := requestChannel()
		if err != nil {
			return nil, err
		}
		p.request = ours
		childEnds = append(childEnds, theirs)
		extra = append(extra, theirs)
		defer func() {
			if err != nil {
				ours.Close()
			}
		}()
	}
	if c.Config.Supervise {
		r, w, err := pipe()
		if err != nil {
			return nil, err
		}
		p.statusR = r
		closeOnFail, childEnds = append(closeOnFail, r), append(childEnds, w)
		extra = append(extra, w)
		c.Config.StatusFD = RequestFD + len(extra) - 1
	}
	// Our own pipes, so a sandbox can be started before its call's
	// streams are known.
	inR, inW, err := pipe()
	if err != nil {
		return nil, err
	}
	p.stdin = inW
	closeOnFail, childEnds = append(closeOnFail, inW), append(childEnds, inR)
	for _, dst := range []**os.File{&p.stdout, &p.stderr} {
		r, w, err := pipe()
		if err != nil {
			return nil, err
		}
		*dst = r
		closeOnFail, childEnds = append(closeOnFail, r), append(childEnds, w)
	}
	stdout, stderr := childEnds[len(childEnds)-2], childEnds[len(childEnds)-1]
	if sp != nil {
		if err := p.spawn(sp, SpawnFiles{Stdin: inR, Stdout: stdout, Stderr: stderr, Request: extra[0], Status: extra[1]}); err != nil {
			return nil, err
		}
		return p.waitInBackground(), nil
	}

	arg, err := c.Config.Encode()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(c.Helper, initproc.Entry, arg)
	cmd.Env = c.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.Dir = c.Dir
	cmd.SysProcAttr = sysProcAttr()
	cmd.ExtraFiles = extra
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, stdout, stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start sandbox helper: %w", err)
	}
	p.proc = child{cmd}
	return p.waitInBackground(), nil
}

// waitInBackground closes p.done once the run's first process is gone.
func (p *Pending) waitInBackground() *Pending {
	go func() {
		p.state, p.waitErr = p.proc.wait()
		close(p.done)
	}()
	return p
}

// spawn has sp start the run with its descriptors and adopts the
// process it hands back; a root run's cgroup.procs goes with them.
func (p *Pending) spawn(sp Spawner, files SpawnFiles) error {
	if p.group != nil {
		procs, err := os.OpenFile(p.group.ProcsFile(), os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("open the run's cgroup: %w", err)
		}
		defer procs.Close()
		files.Cgroup = procs
	}
	p.spawned = true
	pidfd, err := sp.Spawn(files)
	if err != nil {
		return fmt.Errorf("start sandbox: %w", err)
	}
	proc, err := adoptPidfd(pidfd)
	if err != nil {
		return fmt.Errorf("start sandbox: %w", err)
	}
	p.proc = proc
	return nil
}

// Call is what a run needs once its call arrives.
type Call struct {
	// Request names the target of a deferred Command; nil otherwise.
	Request *initproc.Request
	Limits  sandbox.Limits
	Stdin   io.Reader
	Stdout  io.Writer // live copies, optional
	Stderr  io.Writer
	// Proxy serves the run's proxy connections: on ProxyListener when set
	// (a port on the host's loopback), else on the listening socket the
	// helper hands back when the Request's Net has a Listen address.
	Proxy         sandbox.Proxy
	ProxyListener net.Listener
	// Abort, when it closes, kills the run at once (no grace) for
	// AbortReason: the daemon saw it change a protected path.
	Abort       <-chan struct{}
	AbortReason sandbox.KillReason
}

// Exec hands the call to the helper and waits for the run. It returns
// sandbox.ErrNotReady, having run nothing, when a deferred helper died
// first.
func (p *Pending) Exec(ctx context.Context, call Call) (res sandbox.Result, err error) {
	res = sandbox.Result{Backend: p.c.Backend}
	// Whatever happens below, the proxy stops with the run.
	stopProxy := p.serveProxy(call)
	defer stopProxy()
	// The helper may still be exiting: release what it used once it has.
	defer func() {
		go func() {
			<-p.done
			p.finish()
		}()
	}()
	if err := ctx.Err(); err != nil {
		p.kill()
		return res, err
	}
	if p.c.Deferred {
		select {
		case <-p.done:
			return res, sandbox.ErrNotReady
		default:
		}
		// A spawned sandbox dies with its zygote; its waiter may not
		// have seen it yet.
		if p.proc.gone() {
			return res, sandbox.ErrNotReady
		}
		if call.Request == nil {
			p.kill()
			return res, errors.New("sandbox started ahead of time needs a request")
		}

		b, err := json.Marshal(call.Request)
		if err != nil {
			p.kill()
			return res, fmt.Errorf("encode sandbox request: %w", err)
		}
		// The helper reads it once it is up; a huge argv must not block
		// the kill paths below.
		go func() {
			_, _ = p.request.Write(b)
			_ = p.request.CloseWrite()
		}()
	}

	limits := call.Limits
	out := CopyOutput(p.stdout, p.stderr, limits.OutputCap(), call.Stdout, call.Stderr)
	if call.Stdin != nil {
		go func() {
			_, _ = io.Copy(p.stdin, call.Stdin)
			p.stdin.Close()
		}()
	} else {
		p.stdin.Close()
	}
	// A supervising helper reports once the target has exited and it has
	// killed what the target left behind: the run is over then, and the
	// helper's own exit need not be waited for.
	var status *initproc.Status
	started := false
	statusDone := make(chan struct{})
	go func() {
		defer close(statusDone)
		if p.statusR == nil {
			return
		}
		dec := json.NewDecoder(p.statusR)
		for {
			var s initproc.Status
			if dec.Decode(&s) != nil {
				return
			}
			if !s.Started {
				status = &s
				return
			}
			started = true
		}
	}()
	over := p.done
	if p.statusR != nil {
		over = statusDone
	}

	start := time.Now()
	var wall <-chan time.Time
	if limits.Wall > 0 {
		t := time.NewTimer(limits.Wall)
		defer t.Stop()
		wall = t.C
	}
	select {
	case <-over:
	case <-ctx.Done():
		res.Killed, res.KillReason = true, sandbox.KillCanceled
		p.terminate(limits.GraceOrDefault())
	case <-wall:
		res.Killed, res.KillReason = true, sandbox.KillTimeout
		p.terminate(limits.GraceOrDefault())
	case <-call.Abort:
		res.Killed, res.KillReason = true, call.AbortReason
		p.terminate(0)
	}
	res.Duration = time.Since(start)
	<-statusDone // EOF at the latest when the helper is gone
	if status == nil {
		<-p.done
	}
	// Nothing of the run can still be writing when a supervisor reported
	// (after killing the rest) or a PID namespace died with the helper;
	// the cgroup is emptied for good measure once the helper is gone, off
	// the call's path (finish).
	out.Finish(&res, status != nil || p.c.PIDNamespace)
	if status == nil && !res.Killed && p.spawned {
		// Stopped from outside (its zygote died): before the command
		// started, another sandbox may take the call.
		if !started {
			return res, sandbox.ErrNotReady
		}
		return res, errKilledOutside
	}
	select {
	case <-p.done:
		FillExit(&res, p.state, status)
		if p.waitErr != nil && p.state == nil && status == nil {
			return res, fmt.Errorf("wait for sandboxed process: %w", p.waitErr)
		}
	default:
		FillExit(&res, nil, status)
	}
	return res, SetupError(status)
}

// errKilledOutside: a spawned run's first process was killed, not by the
// daemon, after its command started (its session's zygote was killed).
var errKilledOutside = errors.New("the command's sandbox was stopped from outside Gatehouse while it ran; it may have run in part")

// SetupError is the error a helper reported when it could not confine
// its target (which then never ran), or nil.
func SetupError(status *initproc.Status) error {
	if status != nil && status.Error != "" && status.Exit == initproc.ExitSetupFailed {
		return fmt.Errorf("sandbox setup failed: %s", status.Error)
	}
	return nil
}

// serveProxy hands the run's proxy listener to call.Proxy and returns
// what closes it once the run is over.
func (p *Pending) serveProxy(call Call) (stop func()) {
	if call.Proxy == nil {
		if call.ProxyListener != nil {
			call.ProxyListener.Close()
		}
		return func() {}
	}
	if call.ProxyListener != nil {
		go call.Proxy.Serve(call.ProxyListener)
		return func() { call.ProxyListener.Close() }
	}
	if call.Request == nil || call.Request.Net == nil || call.Request.Net.Listen == "" || p.request == nil {
		return func() {}
	}
	return ServeProxyFrom(p.request, call.Proxy, p.log)
}

// Discard stops a helper whose call never came.
func (p *Pending) Discard() {
	p.kill()
	go func() {
		<-p.done
		p.finish()
	}()
}

// kill ends the helper at once: nothing it runs has started yet, or the
// caller gave up on it.
func (p *Pending) kill() {
	if p.request != nil {
		p.request.Close() // a waiting helper exits on EOF
	}
	_ = proctree.KillDescendants(p.proc.pid())
	_ = p.proc.signal(syscall.SIGKILL)
	if p.group != nil {
		_ = p.group.Kill()
	}
	<-p.done
}

func (p *Pending) terminate(grace time.Duration) {
	terminate(p.proc, p.group, grace, p.done)
}

// finish releases what Start took, once.
func (p *Pending) finish() {
	p.finishOnce.Do(func() {
		for _, f := range []*os.File{p.stdin, p.stdout, p.stderr, p.statusR} {
			if f != nil {
				f.Close()
			}
		}
		if p.request != nil {
			p.request.Close()
		}
		p.removeGroup()
		if p.c.Cleanup != nil {
			p.c.Cleanup()
		}
	})
}

func (p *Pending) removeGroup() {
	if p.group == nil {
		return
	}
	_ = p.group.Kill()
	if err := p.group.Remove(); err != nil {
		p.log.Warn("sandbox: cgroup cleanup", "err", err)
	}
}

// terminate asks the tree to stop, waits the grace period, then kills
// every descendant and finally the root. The root dies last: while it
// lives (subreaper or PID-namespace parent) no descendant can escape.
func terminate(proc process, group *cgroup.Group, grace time.Duration, done <-chan struct{}) {
	root := proc.pid()
	_ = proctree.Signal(root, syscall.SIGTERM, false)
	if group != nil {
		for _, p := range group.PIDs() {
			if p != root {
				_ = syscall.Kill(p, syscall.SIGTERM)
			}
		}
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
		return
	case <-t.C:
	}
	_ = proctree.KillDescendants(root)
	if group != nil {
		_ = group.Kill()
	}
	_ = proc.signal(syscall.SIGKILL)
	<-done
}

// FillExit sets res's exit code or signal from the helper's process state
// and, when a supervisor reported one, its Status (which wins).
func FillExit(res *sandbox.Result, ps *os.ProcessState, st *initproc.Status) {
	if ps == nil && st == nil {
		res.ExitCode = -1
		return
	}
	var ws syscall.WaitStatus
	if ps != nil {
		ws, _ = ps.Sys().(syscall.WaitStatus)
	}
	switch {
	case st != nil && st.Signal != 0:
		res.ExitCode, res.Signal = -1, signalName(syscall.Signal(st.Signal))
	case st != nil:
		res.ExitCode = st.Exit
	case ws.Signaled():
		res.ExitCode, res.Signal = -1, signalName(ws.Signal())
	default:
		res.ExitCode = ws.ExitStatus()
	}
	switch res.Signal {
	case signalName(syscall.SIGXCPU):
		res.Killed, res.KillReason = true, sandbox.KillCPU
		res.Violations = append(res.Violations, sandbox.Violation{Kind: "limit", Detail: "CPU time limit reached"})
	case signalName(syscall.SIGXFSZ):
		res.Violations = append(res.Violations, sandbox.Violation{Kind: "limit", Detail: "file size limit reached"})
	}
}

func signalName(s syscall.Signal) string {
	if n := s.String(); n != "" {
		return n
	}
	return fmt.Sprintf("signal %d", int(s))
}

func randomID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Defaults fills in the helper binary and the real home directory that a
// backend was not given.
func Defaults(helper, home *string) error {
	if *helper == "" {
		h, err := DefaultHelper()
		if err != nil {
			return err
		}
		*helper = h
	}
	if *home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return fmt.Errorf("find home directory: %w", err)
		}
		*home = h
	}
	return nil
}

// ErrNoHelper means the helper binary could not be found.
var ErrNoHelper = errors.New("sandbox helper binary not found")

// HelperName is the stand-alone helper binary looked for next to the
// running one (see sandbox/cmd/gatehouse-sandbox-init).
const HelperName = "gatehouse-sandbox-init"

// DefaultHelper is the stand-alone helper installed next to the running
// binary when there is a trustworthy one, else the running binary itself,
// which implements initproc.Entry too.
func DefaultHelper() (string, error) {
	p, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrNoHelper, err)
	}
	if sib := filepath.Join(filepath.Dir(p), HelperName); trustedSibling(sib, p) {
		return sib, nil
	}
	return p, nil
}

// trustedSibling accepts the helper only if it is a regular executable file
// owned like the running binary and writable by nobody else, so a planted
// file cannot stand in for the confinement step.
func trustedSibling(path, self string) bool {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 || st.Mode().Perm()&0o022 != 0 {
		return false
	}
	me, err := os.Stat(self)
	if err != nil {
		return false
	}
	a, ok1 := st.Sys().(*syscall.Stat_t)
	b, ok2 := me.Sys().(*syscall.Stat_t)
	return ok1 && ok2 && a.Uid == b.Uid
}
