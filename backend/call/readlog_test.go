package call

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/approval"
	"github.com/gatehouse-dev/gatehouse/backend/db"
	"github.com/gatehouse-dev/gatehouse/backend/session"
	"github.com/gatehouse-dev/gatehouse/backend/workspace"
)

type row struct {
	kind, actor, call string
	payload           map[string]any
}

type rows struct {
	mu   sync.Mutex
	list []row
}

func (r *rows) add(kind, actor, call string, payload any) {
	b, _ := json.Marshal(payload)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	r.mu.Lock()
	r.list = append(r.list, row{kind, actor, call, m})
	r.mu.Unlock()
}

// rows is the test's audit timeline (call.Audit).
func (r *rows) Record(_ context.Context, row Row) error {
	r.add(row.Kind, row.Actor, row.Call, row.Payload)
	return nil
}
func (r *rows) RecordWritten(ctx context.Context, row Row) error { return r.Record(ctx, row) }
func (r *rows) Queue(ctx context.Context, row Row)               { _ = r.Record(ctx, row) }
func (r *rows) Expect() Expectation                              { return noExpectation{} }

type noExpectation struct{}

func (noExpectation) Settle() {}

// forCall returns the kinds recorded for one call, in order.
func (r *rows) forCall(id string) ([]string, []row) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var kinds []string
	var out []row
	for _, x := range r.list {
		if x.call == id {
			kinds = append(kinds, x.kind)
			out = append(out, x)
		}
	}
	return kinds, out
}

func testRunner(t *testing.T, tune ...func(*Deps)) (*Runner, *session.State, *rows, string) {
	t.Helper()
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(base, "outside.txt")
	if err := os.WriteFile(outside, []byte("elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	sqlDB, err := db.Open(ctx, filepath.Join(base, "g.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sqlDB.Close() })
	got := &rows{}
	emit := func(ctx context.Context, kind, actor, sess string, payload any) { got.add(kind, actor, "", payload) }
	sessions := session.NewManager(ctx, sqlDB, emit, slog.New(slog.DiscardHandler))
	approvals := approval.New(sqlDB, func(ctx context.Context, kind, actor, sess, call string, payload any) {
		got.add(kind, actor, call, payload)
	}, slog.New(slog.DiscardHandler), approval.Options{Timeout: 50 * time.Millisecond})
	pol, err := LoadPolicy(filepath.Join(base, "policy.toml"), []string{ws})
	if err != nil {
		t.Fatal(err)
	}
	deps := Deps{
		Sessions: sessions, Approvals: approvals, Policy: pol, Audit: got,
		Logger: slog.New(slog.DiscardHandler),
	}
	for _, f := range tune {
		f(&deps)
	}
	r, err := New(deps)
	if err != nil {
		t.Fatal(err)
	}
	live, err := sessions.Start(ctx, session.StartRequest{Client: "probe", Workspaces: []string{ws}})
	if err != nil {
		t.Fatal(err)
	}
	roots, err := workspace.New(ws)
	if err != nil {
		t.Fatal(err)
	}
	st := session.NewState(live, []string{ws}, roots, session.DefaultLimits())
	t.Cleanup(func() { st.Close(context.Background()) })
	return r, st, got, outside
}

func TestAllowedReadIsOneRow(t *testing.T) {
	r, st, got, _ := testRunner(t)
	res := r.Call(t.Context(), Request{State: st, Tool: "read_file", Args: json.RawMessage(`{"path":"a.txt"}`)})
	if res.IsError || !strings.Contains(res.Text, "hello") {
		t.Fatalf("read_file: %+v", res)
	}
	kinds, list := got.forCall(res.CallID)
	if strings.Join(kinds, ",") != "tool.result" {
		t.Fatalf("rows = %v, want one tool.result", kinds)
	}
	p := list[0].payload
	args, _ := p["args"].(map[string]any)
	if list[0].actor != "agent:probe" || p["verdict"] != "allow" || args["path"] != "a.txt" || p["tool"] != "read_file" || p["is_error"] != false {
		t.Fatalf("merged row: actor %s payload %v", list[0].actor, p)
	}
}

func TestReadOffTheStraightPathKeepsEveryRow(t *testing.T) {
	r, st, got, outside := testRunner(t)
	res := r.Call(t.Context(), Request{State: st, Tool: "read_file", Args: json.RawMessage(`{"path":"a.txt","unit":"pages"}`)})
	if kinds, _ := got.forCall(res.CallID); !res.IsError || strings.Join(kinds, ",") != "tool.call,tool.invalid" {
		t.Fatalf("invalid read: %v %v", res.IsError, kinds)
	}
	res = r.Call(t.Context(), Request{State: st, Tool: "read_file", Args: json.RawMessage(`{"path":"missing.txt"}`)})
	if kinds, _ := got.forCall(res.CallID); !res.IsError || strings.Join(kinds, ",") != "tool.call,tool.validated,policy.decision,tool.error" {
		t.Fatalf("failed read: %v %v", res.IsError, kinds)
	}
	// Outside the workspace asks; nobody answers, so it expires and is
	// denied. The call's rows come before the card's.
	res = r.Call(t.Context(), Request{State: st, Tool: "read_file", Args: json.RawMessage(`{"path":` + strconvQuote(outside) + `}`)})
	kinds, _ := got.forCall(res.CallID)
	if !res.IsError || len(kinds) < 5 || strings.Join(kinds[:4], ",") != "tool.call,tool.validated,policy.decision,approval.requested" || kinds[len(kinds)-1] != "tool.denied" {
		t.Fatalf("asked read: %v %v", res.IsError, kinds)
	}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// TestPanicBecomesToolError: a panic anywhere in a call is caught, answered
// as a tool error with the call id, and recorded; the next call runs.
func TestPanicBecomesToolError(t *testing.T) {
	r, st, got, _ := testRunner(t)
	for name, args := range map[string]string{"read_file": `{"path":"a.txt"}`, "write_file": `{"path":"a.txt","content":"x"}`} {
		orig := r.tools[name].MakePlan
		r.tools[name].MakePlan = func(ctx context.Context, c *InFlight) (*Plan, error) { panic("boom in " + name) }
		res := r.Call(t.Context(), Request{State: st, Tool: name, Args: json.RawMessage(args)})
		r.tools[name].MakePlan = orig
		if !res.IsError || !strings.Contains(res.Text, res.CallID) || strings.Contains(res.Text, "boom") || res.Structured["error"] == nil {
			t.Fatalf("%s: %+v", name, res)
		}
		kinds, rows := got.forCall(res.CallID)
		if kinds[len(kinds)-1] != "tool.error" {
			t.Fatalf("%s rows: %v", name, kinds)
		}
		if strings.Contains(rows[len(rows)-1].payload["error"].(string), "boom") {
			t.Fatalf("the panic's text reached the audit row shown to the agent: %v", rows[len(rows)-1].payload)
		}
	}
	if res := r.Call(t.Context(), Request{State: st, Tool: "read_file", Args: json.RawMessage(`{"path":"a.txt"}`)}); res.IsError {
		t.Fatalf("after the panics: %+v", res)
	}
}
