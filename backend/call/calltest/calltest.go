// Package calltest runs the call pipeline in unit tests: a real runner
// with the built-in tools over a real session manager, approval broker and
// policy, with a fake sandbox and an audit timeline kept in memory. The
// real backends' refusals are watched in their own real-process suites.
package calltest

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/approval"
	"github.com/gatehouse-dev/gatehouse/backend/call"
	"github.com/gatehouse-dev/gatehouse/backend/call/tools"
	"github.com/gatehouse-dev/gatehouse/backend/db"
	"github.com/gatehouse-dev/gatehouse/backend/session"
	"github.com/gatehouse-dev/gatehouse/backend/workspace"
)

// Fixture is one runner and one session in a fresh workspace holding
// a.txt ("hello\n"), with a file outside it.
type Fixture struct {
	Runner   *call.Runner
	State    *session.State
	Audit    *Audit
	Sessions *session.Manager
	// Outside is a file beside the workspace, not in it.
	Outside string
}

// New makes a fixture; tune changes the runner's deps before it is made
// (a sandbox, a redactor). Unanswered cards expire at once.
func New(t *testing.T, tune ...func(*call.Deps)) *Fixture {
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
	got := &Audit{}
	quiet := slog.New(slog.DiscardHandler)
	emit := func(ctx context.Context, kind, actor, sess string, payload any) { got.add(kind, actor, "", payload) }
	sessions := session.NewManager(ctx, sqlDB, emit, quiet)
	approvals := approval.New(sqlDB, func(ctx context.Context, kind, actor, sess, callID string, payload any) {
		got.add(kind, actor, callID, payload)
	}, quiet, approval.Options{Timeout: 50 * time.Millisecond})
	pol, err := call.LoadPolicy(filepath.Join(base, "policy.toml"), []string{ws})
	if err != nil {
		t.Fatal(err)
	}
	deps := call.Deps{Sessions: sessions, Approvals: approvals, Policy: pol, Audit: got, Logger: quiet}
	for _, f := range tune {
		f(&deps)
	}
	r := call.New(deps)
	if err := r.Register(tools.Builtin(tools.For(r, deps.Redact, quiet))...); err != nil {
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
	t.Cleanup(func() { st.Close(context.WithoutCancel(ctx)) })
	return &Fixture{Runner: r, State: st, Audit: got, Sessions: sessions, Outside: outside}
}

// Call makes one MCP call of tool with args in the fixture's session.
func (f *Fixture) Call(t *testing.T, tool, args string) call.Result {
	t.Helper()
	return f.Runner.Call(t.Context(), call.Request{State: f.State, Tool: tool, Args: json.RawMessage(args), Via: call.ViaMCP})
}

// Workspace is the session's workspace directory.
func (f *Fixture) Workspace() string { return f.State.Workspaces[0] }
