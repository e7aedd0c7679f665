package call_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/call"
	"github.com/gatehouse-dev/gatehouse/backend/call/calltest"
	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// countingBackend stages, and counts the sessions it opens and closes.
type countingBackend struct {
	mu             sync.Mutex
	opened, closed int
}

func (b *countingBackend) Name() string   { return "counting" }
func (b *countingBackend) CanStage() bool { return true }

func (b *countingBackend) Open(context.Context, sandbox.SessionSpec) (sandbox.Session, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.opened++
	return countingSession{b}, nil
}

func (b *countingBackend) counts() (opened, closed int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.opened, b.closed
}

type countingSession struct{ b *countingBackend }

func (s countingSession) Run(context.Context, sandbox.Spec) (sandbox.Result, error) {
	return sandbox.Result{}, nil
}

func (s countingSession) Close(context.Context) error {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	s.b.closed++
	return nil
}

// TestSessionReleasesItsSandbox: the session's state releases the sandbox
// the pipeline opened when it idles (the next command opens another) and
// when it ends, once, removing the stage root; an ended session opens none.
func TestSessionReleasesItsSandbox(t *testing.T) {
	ctx := t.Context()
	be := &countingBackend{}
	stageDir := t.TempDir()
	f := calltest.New(t, func(d *call.Deps) { d.Sandbox, d.StageDir = be, stageDir })
	st := f.State
	run := func(step string) {
		t.Helper()
		if res := f.Call(t, "run_command", `{"argv":["true"]}`); res.IsError {
			t.Fatalf("%s: %s", step, res.Text)
		}
	}
	want := func(step string, opened, closed int) {
		t.Helper()
		if o, c := be.counts(); o != opened || c != closed {
			t.Fatalf("%s: opened %d, closed %d; want %d, %d", step, o, c, opened, closed)
		}
	}

	run("first command")
	run("second command")
	want("two commands", 1, 0)
	root := filepath.Join(stageDir, st.Live.ID())
	if _, err := os.Stat(root); err != nil {
		t.Fatalf("stage root: %v", err)
	}

	st.Idle(ctx)
	want("idle", 1, 1)
	run("a command after idle")
	want("a command after idle", 2, 1)

	st.Close(ctx)
	st.Close(ctx)
	want("closed twice", 2, 2)
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Fatalf("stage root after close: %v", err)
	}
	if res := f.Call(t, "run_command", `{"argv":["true"]}`); !res.IsError {
		t.Fatalf("a command after close ran: %s", res.Text)
	}
	want("a command after close", 2, 2)
}

// TestClosedSessionOpensNoSandbox: a session that ended before its first
// command never opens a sandbox, which nothing would release.
func TestClosedSessionOpensNoSandbox(t *testing.T) {
	be := &countingBackend{}
	f := calltest.New(t, func(d *call.Deps) { d.Sandbox = be })
	f.State.Close(t.Context())
	if res := f.Call(t, "run_command", `{"argv":["true"]}`); !res.IsError {
		t.Fatalf("a closed session ran a command: %s", res.Text)
	}
	if o, _ := be.counts(); o != 0 {
		t.Fatalf("opened %d sandboxes", o)
	}
}
