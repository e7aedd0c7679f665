package sandbox

import (
	"context"
	"sync"
)

// RunPrepared runs one validated spec of a session.
type RunPrepared func(ctx context.Context, ss SessionSpec, p *Prepared) (Result, error)

// processSession is the session of a backend that confines every run as its
// own process tree (bwrap, Landlock, Seatbelt, none): opening validates the
// workspaces once, each run is validated before it starts, and closing
// refuses later runs and stops a sandbox built ahead of time.
type processSession struct {
	backend string
	ss      SessionSpec
	opt     PrepareOptions
	run     RunPrepared

	// warmer, when set, builds sandboxes ahead of calls (see warm.go).
	warmer  Warmer
	warming sync.WaitGroup

	mu     sync.Mutex
	closed bool
	// ready are sandboxes built ahead (at most warmPool); building counts
	// those under way, and built is closed (and replaced) whenever one is
	// done, for a call waiting on it.
	ready    []*warmSandbox
	building int
	built    chan struct{}
}

// OpenProcessSession validates s and returns a session whose runs are
// validated with opt and handed to run.
func OpenProcessSession(backend string, s SessionSpec, opt PrepareOptions, run RunPrepared) (Session, error) {
	ss, err := PrepareSession(s, opt)
	if err != nil {
		return nil, err
	}
	return &processSession{backend: backend, ss: ss, opt: opt, run: run}, nil
}

func (s *processSession) Run(ctx context.Context, spec Spec) (Result, error) {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return Result{Backend: s.backend}, ErrClosed
	}
	p, err := Prepare(s.ss, spec, s.opt)
	if err != nil {
		return Result{Backend: s.backend}, err
	}
	return s.run(ctx, s.ss, p)
}

func (s *processSession) Close(context.Context) error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	if s.warmer != nil {
		s.closeWarm()
	}
	return nil
}
