package calltest

import (
	"context"
	"sync"

	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// Sandbox stands in for a backend (sandbox.Backend and its Session): it
// records what each run was asked and answers with Result.
type Sandbox struct {
	Result sandbox.Result

	mu     sync.Mutex
	specs  []sandbox.Spec
	opened []sandbox.SessionSpec
}

// Name is the backend's name.
func (f *Sandbox) Name() string { return "fake" }

// Open records the session asked for.
func (f *Sandbox) Open(_ context.Context, ss sandbox.SessionSpec) (sandbox.Session, error) {
	f.mu.Lock()
	f.opened = append(f.opened, ss)
	f.mu.Unlock()
	return f, nil
}

// Run records the run asked for and answers with Result.
func (f *Sandbox) Run(_ context.Context, s sandbox.Spec) (sandbox.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.specs = append(f.specs, s)
	return f.Result, nil
}

// Close does nothing.
func (f *Sandbox) Close(context.Context) error { return nil }

// Runs are the runs asked for, in order.
func (f *Sandbox) Runs() []sandbox.Spec {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]sandbox.Spec(nil), f.specs...)
}

// Opened are the sessions opened, in order.
func (f *Sandbox) Opened() []sandbox.SessionSpec {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]sandbox.SessionSpec(nil), f.opened...)
}
