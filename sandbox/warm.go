package sandbox

import (
	"context"
	"errors"
	"fmt"
)

// A Warmer builds sandboxes ahead of their calls. Setting up namespaces
// or Landlock rules and starting the helper take most of a short
// command's time, and an agent spends seconds thinking between calls, so
// a session keeps one sandbox ready for its next call.
type Warmer interface {
	// Layout identifies what a started sandbox can run: prepared runs with
	// the same layout can use the same sandbox. It is computed afresh for
	// every call, so a sandbox built before the workspace changed (a new
	// protected file, a new hidden path) is not used.
	Layout(ss SessionSpec, p *Prepared) (string, error)
	// Start builds a sandbox for p's layout that waits for its call.
	Start(ss SessionSpec, p *Prepared) (Started, error)
}

// Started is a sandbox built ahead of its call.
type Started interface {
	// Run runs p in it, once. ErrNotReady means it died unused and
	// nothing ran.
	Run(ctx context.Context, p *Prepared) (Result, error)
	// Discard stops it unused.
	Discard()
}

type warmSandbox struct {
	layout string
	st     Started
}

// OpenWarmSession is OpenProcessSession for a backend that can build its
// sandboxes ahead of time: one is kept ready, for the layout of the last
// call (or of a plain command before the first).
func OpenWarmSession(backend string, s SessionSpec, opt PrepareOptions, w Warmer) (Session, error) {
	ps := &processSession{backend: backend, opt: opt}
	ss, err := PrepareSession(s, opt)
	if err != nil {
		return nil, err
	}
	ps.ss = ss
	ps.warmer = w
	ps.run = ps.runWarm
	if p, err := Prepare(ss, Spec{Argv: []string{"true"}, Limits: DefaultLimits()}, opt); err == nil {
		ps.prepareNext(p)
	}
	return ps, nil
}

// runWarm runs p in the ready sandbox when its layout matches, else in a
// fresh one, and then readies the next.
func (s *processSession) runWarm(ctx context.Context, ss SessionSpec, p *Prepared) (Result, error) {
	layout, err := s.layout(p)
	if err != nil {
		return Result{Backend: s.backend}, err
	}
	defer s.prepareNext(p)
	s.mu.Lock()
	ready := s.ready
	s.ready = nil
	s.mu.Unlock()
	if ready != nil {
		if ready.layout == layout {
			res, err := ready.st.Run(ctx, p)
			if !errors.Is(err, ErrNotReady) {
				return res, err
			}
		} else {
			ready.st.Discard()
		}
	}
	st, err := s.warmer.Start(ss, p)
	if err != nil {
		return Result{Backend: s.backend}, err
	}
	return st.Run(ctx, p)
}

// prepareNext builds the next call's sandbox in the background.
func (s *processSession) prepareNext(p *Prepared) {
	s.warming.Add(1)
	go func() {
		defer s.warming.Done()
		s.mu.Lock()
		skip := s.closed || s.ready != nil
		s.mu.Unlock()
		if skip {
			return
		}
		layout, err := s.layout(p)
		if err != nil {
			return
		}
		st, err := s.warmer.Start(s.ss, p)
		if err != nil {
			return // the call itself will report it
		}
		s.mu.Lock()
		keep := !s.closed && s.ready == nil
		if keep {
			s.ready = &warmSandbox{layout: layout, st: st}
		}
		s.mu.Unlock()
		if !keep {
			st.Discard()
		}
	}()
}

// closeWarm discards the ready sandbox, waiting for one being built.
func (s *processSession) closeWarm() {
	s.warming.Wait()
	s.mu.Lock()
	ready := s.ready
	s.ready = nil
	s.mu.Unlock()
	if ready != nil {
		ready.st.Discard()
	}
}

// layout is the warmer's layout plus the limits fixed at start (the
// root-only pids cgroup, the supervisor's grace).
func (s *processSession) layout(p *Prepared) (string, error) {
	l, err := s.warmer.Layout(s.ss, p)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s\x00%d\x00%d", l, p.Limits.Processes, p.Limits.GraceOrDefault()), nil
}
