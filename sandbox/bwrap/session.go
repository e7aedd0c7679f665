package bwrap

import (
	"context"
	"errors"
	"sync"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
	"github.com/gatehouse-dev/gatehouse/sandbox/launch"
)

// sessionWarmer builds one session's sandboxes (sandbox.Warmer) from
// zygotes: one for the layout in use, started the first time a sandbox
// of that layout is needed. A zygote of a layout the session no longer
// uses (the workspace gained a hidden path, a call asked for the host's
// network) stops once its last sandbox is over.
type sessionWarmer struct {
	b *Backend

	mu      sync.Mutex
	zygotes map[string]*zygoteUse
	current string
	closed  bool

	// last is the spec of the last call's prepared run: the session asks
	// for its layout, then builds the next sandbox from the same run.
	lastMu   sync.Mutex
	lastP    *sandbox.Prepared
	lastSpec zygoteSpec
}

type zygoteUse struct {
	z *zygote
	// sandboxes started from it and not yet over (ready or running).
	sandboxes int
}

func newSessionWarmer(b *Backend) *sessionWarmer {
	return &sessionWarmer{b: b, zygotes: map[string]*zygoteUse{}}
}

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
			Cleanup:      func() { w.release(z) },
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
func (w *sessionWarmer) acquire(spec zygoteSpec) (*zygote, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil, sandbox.ErrClosed
	}
	use := w.zygotes[spec.layout]
	if use != nil && use.z.gone() {
		delete(w.zygotes, spec.layout)
		use = nil
	}
	if use == nil {
		// Started under the lock: a session builds its sandboxes one at
		// a time in the background, and a second zygote for the same
		// layout would only be stopped again.
		z, err := startZygote(w.b.opts.Bwrap, spec.args, w.b.opts.Helper, spec.cfg, spec.layout, w.b.log)
		if err != nil {
			return nil, err
		}
		use = &zygoteUse{z: z}
		w.zygotes[spec.layout] = use
	}
	w.current = spec.layout
	use.sandboxes++
	w.retireLocked()
	return use.z, nil
}

// release counts one of z's sandboxes over.
func (w *sessionWarmer) release(z *zygote) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if use := w.zygotes[z.layout]; use != nil && use.z == z {
		use.sandboxes--
		w.retireLocked()
		return
	}
	// Already forgotten (it was gone and replaced): nothing to count.
}

// retireLocked stops the zygotes no sandbox uses any more, but the
// current layout's while the session is open.
func (w *sessionWarmer) retireLocked() {
	for layout, use := range w.zygotes {
		if use.sandboxes <= 0 && (w.closed || layout != w.current) {
			use.z.close()
			delete(w.zygotes, layout)
		}
	}
}

// Close stops the session's zygotes: at once those with no sandbox
// left, the others when their last one is over (a run in progress
// finishes, as with a bwrap of its own).
func (w *sessionWarmer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	w.retireLocked()
	return nil
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
	req.Net = launch.OwnNamespaceNet(p.Network.Mode)
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
