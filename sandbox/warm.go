package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// A Warmer builds sandboxes ahead of their calls. Setting up namespaces
// or Landlock rules and starting the helper take most of a short
// command's time, and an agent spends seconds thinking between calls, so
// a session keeps one sandbox ready for its next call. A Warmer that
// holds something for the whole session (bwrap's zygotes) is an
// io.Closer, closed with the session.
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
	// Layout is the layout it was built for: the workspace may have
	// changed since the caller last computed one.
	Layout() string
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

// Warming reports how many sandboxes s is still building for its next
// calls: 0 once they are ready (or failed), and for a session that builds
// none ahead. No call reads it; a test waits on it for what an agent's
// thinking time gives, a call that finds its sandbox ready.
func Warming(s Session) int {
	ps, ok := s.(*processSession)
	if !ok {
		return 0
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.building
}

// warmPool is how many sandboxes a session keeps ready. Agents fire
// calls in bursts; with a second one ready, the next call of a burst does
// not wait while the first is replaced.
const warmPool = 2

// runWarm runs p in a ready sandbox of its layout, or in the one being
// built when there is none (it has a head start on a new one), else in a
// fresh one; then it readies the next.
func (s *processSession) runWarm(ctx context.Context, ss SessionSpec, p *Prepared) (Result, error) {
	layout, err := s.layout(p)
	if err != nil {
		return Result{Backend: s.backend}, err
	}
	defer s.prepareNext(p)
	for {
		s.mu.Lock()
		w := s.takeLocked(layout)
		wait := s.built
		waiting := w == nil && s.building > 0 && !s.closed
		s.mu.Unlock()
		if w != nil {
			res, err := w.st.Run(ctx, p)
			if !errors.Is(err, ErrNotReady) {
				return res, err
			}
			continue
		}
		if !waiting {
			break
		}
		select {
		case <-wait:
		case <-ctx.Done():
			return Result{Backend: s.backend}, ctx.Err()
		}
	}
	st, err := s.warmer.Start(ss, p)
	if err != nil {
		return Result{Backend: s.backend}, err
	}
	return st.Run(ctx, p)
}

// takeLocked pops a ready sandbox of layout, discarding ready ones of
// another (built before the workspace changed); s.mu is held.
func (s *processSession) takeLocked(layout string) *warmSandbox {
	var keep []*warmSandbox
	var got *warmSandbox
	for _, w := range s.ready {
		switch {
		case w.layout != layout:
			go w.st.Discard()
		case got == nil:
			got = w
		default:
			keep = append(keep, w)
		}
	}
	s.ready = keep
	return got
}

// prepareNext builds sandboxes for the next calls in the background,
// up to warmPool ready or under way.
func (s *processSession) prepareNext(p *Prepared) {
	s.mu.Lock()
	if s.built == nil {
		s.built = make(chan struct{})
	}
	n := 0
	if !s.closed {
		n = warmPool - len(s.ready) - s.building
	}
	s.building += max(n, 0)
	s.mu.Unlock()
	for i := 0; i < n; i++ {
		s.warming.Add(1)
		go s.buildOne(p)
	}
}

func (s *processSession) buildOne(p *Prepared) {
	defer s.warming.Done()
	var w *warmSandbox
	if st, err := s.warmer.Start(s.ss, p); err == nil { // else the call itself will report it
		w = &warmSandbox{layout: s.withLimits(st.Layout(), p), st: st}
	}
	s.mu.Lock()
	s.building--
	keep := w != nil && !s.closed
	if keep {
		s.ready = append(s.ready, w)
	}
	close(s.built)
	s.built = make(chan struct{})
	s.mu.Unlock()
	if w != nil && !keep {
		w.st.Discard()
	}
}

// closeWarm discards the ready sandboxes, waiting for those being built,
// then lets the warmer go of what it holds for the session.
func (s *processSession) closeWarm() {
	s.warming.Wait()
	s.mu.Lock()
	ready := s.ready
	s.ready = nil
	s.mu.Unlock()
	for _, w := range ready {
		w.st.Discard()
	}
	if c, ok := s.warmer.(io.Closer); ok {
		_ = c.Close()
	}
}

// layout is the warmer's layout plus the limits fixed at start (the
// root-only pids cgroup, the supervisor's grace).
func (s *processSession) layout(p *Prepared) (string, error) {
	l, err := s.warmer.Layout(s.ss, p)
	if err != nil {
		return "", err
	}
	return s.withLimits(l, p), nil
}

func (s *processSession) withLimits(layout string, p *Prepared) string {
	return fmt.Sprintf("%s\x00%d\x00%d", layout, p.Limits.Processes, p.Limits.GraceOrDefault())
}
