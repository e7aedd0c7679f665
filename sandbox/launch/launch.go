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
	"sync"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/cgroup"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
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
	// Proxy and ProxyListener, for Run, are as in Invocation.
	Proxy         sandbox.Proxy
	ProxyListener net.Listener
}

// RequestFD is the helper's descriptor for the request pipe of a
// deferred Command. The status pipe, when supervising, follows it.
const RequestFD = 3

// RunPrepared is Run of c for the prepared call p, in its directory, with
// its limits and streams: for backends whose helper runs the call itself.
func RunPrepared(ctx context.Context, c Command, p *sandbox.Prepared) (sandbox.Result, error) {
	c.Dir, c.Limits = p.Dir, p.Limits
	c.Stdin, c.Stdout, c.Stderr = p.Spec.Stdin, p.Spec.Stdout, p.Spec.Stderr
	return Run(ctx, c)
}

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
	return p.Exec(ctx, Invocation{Limits: c.Limits, Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr, Proxy: c.Proxy, ProxyListener: c.ProxyListener})
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

// Start starts the helper for c without waiting for it.
func Start(c Command) (*Pending, error) { return start(c, nil) }

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

// Invocation is what a run needs once its call arrives.
type Invocation struct {
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
	// HostListeners, with ProxyListener, are the run's listeners on the
	// host's loopback for its host ports, by the port each leads to.
	HostListeners map[int]net.Listener
	// Abort, when it closes, kills the run at once (no grace) for
	// AbortReason: the daemon saw it change a protected path.
	Abort       <-chan struct{}
	AbortReason sandbox.KillReason
}

// Exec hands the call to the helper and waits for the run. It returns
// sandbox.ErrNotReady, having run nothing, when a deferred helper died
// first.
func (p *Pending) Exec(ctx context.Context, call Invocation) (res sandbox.Result, err error) {
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
	wall, stopWall := limits.WallTimer()
	defer stopWall()
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
	if status != nil && status.Unused && !started && !res.Killed {
		// Its supervisor was stopped before the call started.
		return res, sandbox.ErrNotReady
	}
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

func randomID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
