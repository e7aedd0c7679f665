package call_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/call"
	"github.com/gatehouse-dev/gatehouse/backend/call/calltest"
	"github.com/gatehouse-dev/gatehouse/backend/session"
	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

// outcomeOf is the outcome on a call's last row that carries one.
func outcomeOf(t *testing.T, f *calltest.Fixture, id string) session.End {
	t.Helper()
	_, rows := f.Audit.ForCall(id)
	var end session.End
	found := false
	for _, r := range rows {
		o, ok := r.Payload["outcome"].(map[string]any)
		if !ok {
			continue
		}
		found = true
		end = session.End{Outcome: session.Outcome(o["outcome"].(string))}
		end.By, _ = o["by"].(string)
		end.Message, _ = o["message"].(string)
		end.Held, _ = o["held"].(bool)
		if n, ok := o["exit_code"].(float64); ok {
			code := int(n)
			end.ExitCode = &code
		}
	}
	if !found {
		t.Fatalf("call %s has no outcome: %v", id, rows)
	}
	return end
}

// TestCallsEndInOneOutcome: each call ends in one named outcome, on its
// last audit row, and the session's counters count each call once, by
// outcome, with the calls that asked as a dimension of their own.
func TestCallsEndInOneOutcome(t *testing.T) {
	fake := &calltest.Sandbox{Result: sandbox.Result{ExitCode: 2}}
	f := calltest.New(t, func(d *call.Deps) { d.Sandbox = fake })
	tests := []struct {
		name, tool, args string
		want             string
	}{
		{"a read", "read_file", `{"path":"a.txt"}`, "ok"},
		{"a write", "write_file", `{"path":"b.txt","content":"x"}`, "applied"},
		{"bad arguments", "read_file", `{"path":"a.txt","unit":"pages"}`, "refused by Gatehouse"},
		{"a read that fails", "read_file", `{"path":"missing.txt"}`, "failed"},
		{"a command that fails", "run_command", `{"argv":["true"]}`, "failed (exit 2)"},
		// Outside the workspace asks; the card expires unanswered.
		{"an unanswered card", "read_file", `{"path":` + strconvQuote(f.Outside) + `}`, "denied: nobody decided in time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := f.Call(t, tt.tool, tt.args)
			if got := outcomeOf(t, f, res.CallID).Label(); got != tt.want {
				t.Fatalf("outcome %q, want %q (%s)", got, tt.want, res.Text)
			}
		})
	}
	if err := f.Sessions.SetMode(t.Context(), f.State.Live.ID(), "unattended", "test"); err != nil {
		t.Fatal(err)
	}
	res := f.Call(t, "read_file", `{"path":`+strconvQuote(f.Outside)+`}`)
	if got := outcomeOf(t, f, res.CallID).Label(); got != "denied by policy" {
		t.Fatalf("unattended: outcome %q", got)
	}
	info := f.State.Live.Snapshot()
	if info.Calls != 7 || info.Outcomes.Total() != info.Calls {
		t.Fatalf("%d calls, %d outcomes: %+v", info.Calls, info.Outcomes.Total(), info.Outcomes)
	}
	want := session.Tally{OK: 1, Applied: 1, Refused: 1, Failed: 2, Denied: 2}
	if info.Outcomes != want || info.Asked != 1 || info.Denied != 2 || info.Errors != 3 {
		t.Fatalf("counters %+v, want outcomes %+v, 1 asked, 2 denied, 3 errors", info.Counters, want)
	}

	f.Sessions.Kill(t.Context(), "test", "enough")
	res = f.Call(t, "read_file", `{"path":"a.txt"}`)
	if got := outcomeOf(t, f, res.CallID).Label(); got != "stopped by your kill switch" {
		t.Fatalf("after the kill switch: outcome %q", got)
	}
}

// blockingBackend stages, and holds every run until release is closed.
type blockingBackend struct {
	started chan struct{}
	release chan struct{}
}

func (b *blockingBackend) Name() string   { return "blocking" }
func (b *blockingBackend) CanStage() bool { return true }
func (b *blockingBackend) Open(context.Context, sandbox.SessionSpec) (sandbox.Session, error) {
	return b, nil
}
func (b *blockingBackend) Run(context.Context, sandbox.Spec) (sandbox.Result, error) {
	close(b.started)
	<-b.release
	return sandbox.Result{}, nil
}
func (b *blockingBackend) Close(context.Context) error { return nil }

// TestStagedRunOutlivesItsSession: a session that ends while a staged
// run is in flight leaves the run its layers, so it still reads its
// change set, and the last run out removes the stage root.
func TestStagedRunOutlivesItsSession(t *testing.T) {
	be := &blockingBackend{started: make(chan struct{}), release: make(chan struct{})}
	stageDir := t.TempDir()
	f := calltest.New(t, func(d *call.Deps) { d.Sandbox, d.StageDir = be, stageDir })
	done := make(chan call.Result, 1)
	go func() { done <- f.Call(t, "run_command", `{"argv":["touch","b.txt"]}`) }()
	<-be.started
	root := filepath.Join(stageDir, f.State.Live.ID())
	f.State.Close(t.Context())
	if _, err := os.Stat(root); err != nil {
		t.Fatalf("the session's end removed the stage root under a running call: %v", err)
	}
	close(be.release)
	res := <-done
	if res.IsError {
		t.Fatalf("the run could not read its layers: %s", res.Text)
	}
	waitfor.For(t, 10*time.Second, "the stage root to go", func() bool {
		_, err := os.Stat(root)
		return os.IsNotExist(err)
	})
}
