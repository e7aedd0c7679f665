package bwrap

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
	"github.com/gatehouse-dev/gatehouse/sandbox/launch"
)

// sessionWarmer builds one session's sandboxes (sandbox.Warmer) from
// its zygotes (launch.Zygotes), one per layout.
type sessionWarmer struct {
	b       *Backend
	zygotes launch.Zygotes

	// last is the spec of the last call's prepared run: the session asks
	// for its layout, then builds the next sandbox from the same run.
	lastMu   sync.Mutex
	lastP    *sandbox.Prepared
	lastSpec zygoteSpec
}

func newSessionWarmer(b *Backend) *sessionWarmer { return &sessionWarmer{b: b} }

// Layout implements sandbox.Warmer: the zygote's command line and
// config, which hold every mount decided before the call, and whether
// the run has a network of its own.
func (w *sessionWarmer) Layout(_ sandbox.SessionSpec, p *sandbox.Prepared) (string, error) {
	return w.spec(p, true).layout, nil
}

// spec is the zygote spec of p. fresh computes it, and remembers it for
// the build of the sandbox after p's call, which reads it without
// looking again: it is the same run's, moments later, and looking costs
// a call the stat of every hidden path.
func (w *sessionWarmer) spec(p *sandbox.Prepared, fresh bool) zygoteSpec {
	w.lastMu.Lock()
	defer w.lastMu.Unlock()
	if fresh || w.lastP != p {
		w.lastP, w.lastSpec = p, w.b.zygoteSpec(p)
	}
	return w.lastSpec
}

// Start implements sandbox.Warmer: a sandbox from the zygote of p's
// layout, which waits for its call. A zygote found gone (killed, or its
// layout failed) is replaced once.
func (w *sessionWarmer) Start(_ sandbox.SessionSpec, p *sandbox.Prepared) (sandbox.Started, error) {
	spec := w.spec(p, false)
	req := initproc.SpawnRequest{OwnNet: p.Network.Mode != sandbox.NetHost}
	for attempt := 0; ; attempt++ {
		z, err := w.acquire(spec)
		if err != nil {
			return nil, err
		}
		pend, err := launch.StartSpawned(launch.Command{
			Backend:  Name,
			Config:   initproc.Config{Supervise: true},
			Limits:   p.Limits,
			Logger:   w.b.log,
			Deferred: true,
			// The run's first process is its PID 1: when it dies, the
			// kernel kills everything inside.
			PIDNamespace: true,
			Cleanup:      func() { w.zygotes.Release(z) },
		}, spawner{z, req})
		if err == nil {
			return &started{pend: pend, home: w.b.opts.Home, layout: spec.layout}, nil
		}
		if attempt > 0 || !errors.Is(err, errZygoteGone) {
			return nil, err
		}
	}
}

// acquire returns the zygote of spec's layout, started if need be, with
// one more sandbox counted against it.
func (w *sessionWarmer) acquire(spec zygoteSpec) (*launch.Zygote, error) {
	return w.zygotes.Acquire(spec.layout, func() (*launch.Zygote, error) {
		return startZygote(w.b.opts.Bwrap, spec.args, w.b.opts.Helper, spec.cfg, spec.layout, w.b.log)
	})
}

// Close stops the session's zygotes: at once those with no sandbox
// left, the others when their last one is over (a run in progress
// finishes, as with a bwrap of its own).
func (w *sessionWarmer) Close() error { return w.zygotes.Close() }

// startZygote starts bwrap with args (its own arguments) and the
// zygote config cfg.
func startZygote(bwrapPath string, args []string, helper string, cfg initproc.Config, layout string, log *slog.Logger) (*launch.Zygote, error) {
	argv := append(append([]string{bwrapPath}, args...), "--", helperPath(helper), initproc.Entry)
	return launch.StartZygote(argv, cfg, layout, log)
}

// errZygoteGone: the zygote exited (a failed layout, or killed), and a
// new one may do better.
var errZygoteGone = launch.ErrZygoteGone

// spawner is one sandbox's request to a zygote, as launch asks for it.
type spawner struct {
	z   *launch.Zygote
	req initproc.SpawnRequest
}

func (s spawner) Spawn(f launch.SpawnFiles) (int, error) {
	return s.z.Spawn(func(cgroup bool) ([]byte, error) {
		req := s.req
		req.Cgroup = cgroup
		return initproc.EncodeSpawn(req)
	}, f)
}

// started is a sandbox from a zygote, waiting for its call.
type started struct {
	pend   *launch.Pending
	home   string
	layout string
}

// Layout implements sandbox.Started.
func (s *started) Layout() string { return s.layout }

// Discard implements sandbox.Started.
func (s *started) Discard() { s.pend.Discard() }

// Run implements sandbox.Started.
func (s *started) Run(ctx context.Context, p *sandbox.Prepared) (sandbox.Result, error) {
	env := sandbox.RunEnv(p.Env, s.home, "/tmp")
	if p.Network.Mode == sandbox.NetProxy {
		env = sandbox.ProxyEnv(env, sandbox.ProxyAddr)
	}
	req := launch.NewRequest(p, env, 0)
	req.Net = launch.OwnNamespaceNet(p.Network)
	stageRequest(p, req)
	release, err := workspaceMounts(p, req)
	if err != nil {
		s.pend.Discard()
		return sandbox.Result{Backend: Name}, err
	}
	// Placeholders are gone before the call returns: the checkpoint
	// after it, and the person, see the workspace without them.
	defer release()
	res, err := s.pend.Exec(ctx, launch.Invocation{
		Request: req,
		Limits:  p.Limits,
		Stdin:   p.Spec.Stdin,
		Stdout:  p.Spec.Stdout,
		Stderr:  p.Spec.Stderr,
		Proxy:   p.Network.Proxy,
	})
	if err == nil && sandbox.StagingFailed(res, req.StageNonce) {
		return res, &sandbox.SpecError{Field: "stage", Value: p.Stage.Dir, Err: sandbox.ErrCannotStage}
	}
	return res, err
}
