package sandbox

import (
	"context"
	"sync"
	"testing"
)

// fakeWarmer builds sandboxes labelled with the workspace's state at
// the moment each is built.
type fakeWarmer struct {
	mu      sync.Mutex
	state   string // what Layout reports now
	builtAs string // what a sandbox started now is built for
	runs    []string
	discard int
}

func (f *fakeWarmer) Layout(SessionSpec, *Prepared) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.state, nil
}

func (f *fakeWarmer) Start(SessionSpec, *Prepared) (Started, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return &fakeStarted{f: f, layout: f.builtAs}, nil
}

type fakeStarted struct {
	f      *fakeWarmer
	layout string
}

func (s *fakeStarted) Run(context.Context, *Prepared) (Result, error) {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	s.f.runs = append(s.f.runs, s.layout)
	return Result{}, nil
}

func (s *fakeStarted) Discard() {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	s.f.discard++
}

func (s *fakeStarted) Layout() string { return s.layout }

// A ready sandbox is labelled with the layout it was built for, not the
// one computed before it was built: a workspace that changed in between
// must not get a sandbox built for another state.
func TestWarmSandboxKeepsTheLayoutItWasBuiltFor(t *testing.T) {
	f := &fakeWarmer{state: "A", builtAs: "changed while building"}
	ws := t.TempDir()
	sess, err := OpenWarmSession("fake", SessionSpec{ID: "w", Workspaces: []string{ws}}, PrepareOptions{Home: t.TempDir()}, f)
	if err != nil {
		t.Fatal(err)
	}
	ps := sess.(*processSession)
	ps.warming.Wait()
	f.mu.Lock()
	f.builtAs = "A"
	f.mu.Unlock()
	if _, err := sess.Run(t.Context(), Spec{Argv: []string{"true"}, Limits: DefaultLimits()}); err != nil {
		t.Fatal(err)
	}
	ps.warming.Wait()
	if _, err := sess.Run(t.Context(), Spec{Argv: []string{"true"}, Limits: DefaultLimits()}); err != nil {
		t.Fatal(err)
	}
	if err := sess.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	// The first call finds two sandboxes built for another state: both
	// are discarded and it runs in a fresh one; the second takes one
	// built for its state.
	if len(f.runs) != 2 || f.runs[0] != "A" || f.runs[1] != "A" {
		t.Fatalf("runs went to sandboxes built for %q", f.runs)
	}
	if f.discard < 2 {
		t.Errorf("%d sandboxes discarded, want the two built for another state at least", f.discard)
	}
}

// Warming counts the sandboxes under way, and says 0 once they are built.
func TestWarmingCountsTheSandboxesUnderWay(t *testing.T) {
	f := &fakeWarmer{state: "A", builtAs: "A"}
	// Start takes f.mu: held, the session's builds wait under way.
	f.mu.Lock()
	sess, err := OpenWarmSession("fake", SessionSpec{ID: "w", Workspaces: []string{t.TempDir()}}, PrepareOptions{Home: t.TempDir()}, f)
	if err != nil {
		f.mu.Unlock()
		t.Fatal(err)
	}
	n := Warming(sess)
	f.mu.Unlock()
	if n != warmPool {
		t.Errorf("Warming = %d while %d are built, want %d", n, warmPool, warmPool)
	}
	sess.(*processSession).warming.Wait()
	if n := Warming(sess); n != 0 {
		t.Errorf("Warming = %d once built, want 0", n)
	}
	if err := sess.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	run := func(context.Context, SessionSpec, *Prepared) (Result, error) { return Result{}, nil }
	plain, err := OpenProcessSession("plain", SessionSpec{ID: "p", Workspaces: []string{t.TempDir()}}, PrepareOptions{}, run)
	if err != nil {
		t.Fatal(err)
	}
	if n := Warming(plain); n != 0 {
		t.Errorf("Warming = %d for a session that builds nothing ahead", n)
	}
}
