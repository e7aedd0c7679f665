package session

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/db"
	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

// oneWorkspace serves every run in one directory; askFor, when set, is
// a project whose runs must ask first, answered by answer.
type oneWorkspace struct {
	dir    string
	askFor string
	answer chan error
	asked  atomic.Int32
}

func (w *oneWorkspace) Resolve(cwd string) ([]string, string, error) {
	if w.askFor != "" && cwd == w.askFor {
		return nil, cwd, nil
	}
	return []string{w.dir}, "", nil
}

func (w *oneWorkspace) Ask(ctx context.Context, q WorkspaceAsk) ([]string, error) {
	w.asked.Add(1)
	select {
	case err := <-w.answer:
		if err != nil {
			return nil, err
		}
		return []string{q.Project}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func newRuns(t *testing.T) *Runs {
	t.Helper()
	return newRunsIn(t, &oneWorkspace{dir: t.TempDir()})
}

func newRunsIn(t *testing.T, ws Workspaces) *Runs {
	t.Helper()
	d, err := db.Open(t.Context(), filepath.Join(t.TempDir(), "g.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	emit := func(context.Context, string, string, string, any) {}
	m := NewManager(context.Background(), d, emit, slog.New(slog.DiscardHandler))
	g := NewRuns(RunsConfig{Sessions: m, Workspaces: ws, Mode: "auto"})
	// The test's own context is over when cleanups run.
	t.Cleanup(func() { g.Close(context.Background()) })
	return g
}

// TestRunKeepsItsSession: every call of a run shares one session, only
// with the token the run started with; a run whose session ended starts
// a new one.
func TestRunKeepsItsSession(t *testing.T) {
	ctx := t.Context()
	g := newRuns(t)
	key := RunKey{Agent: "claude", ID: "run-1"}
	first, err := g.Use(ctx, key, RunStart{Token: "tok-a", Transport: "hook"})
	if err != nil {
		t.Fatal(err)
	}
	again, err := g.Use(ctx, key, RunStart{Token: "tok-a", Transport: "hook"})
	if err != nil || again != first {
		t.Fatalf("second call of the run: state %p, err %v; want the first state %p", again, err, first)
	}
	if _, err := g.Use(ctx, key, RunStart{Token: "tok-b"}); !errors.Is(err, ErrOtherToken) {
		t.Fatalf("another token naming the run: err %v, want ErrOtherToken", err)
	}
	if st, ok := g.Find(key); !ok || st != first {
		t.Fatal("Find does not return the run's state")
	}
	if st, ok := g.Session(first.Live.ID()); !ok || st != first {
		t.Fatal("Session does not find the run by its session id")
	}
	other, err := g.Use(ctx, RunKey{Agent: "claude", ID: "run-2"}, RunStart{Token: "tok-a"})
	if err != nil || other.Live.ID() == first.Live.ID() {
		t.Fatalf("another run shares the session (err %v)", err)
	}

	g.End(ctx, key, "agent said so")
	if _, ok := g.Find(key); ok {
		t.Fatal("an ended run is still found")
	}
	next, err := g.Use(ctx, key, RunStart{Token: "tok-a"})
	if err != nil || next.Live.ID() == first.Live.ID() {
		t.Fatalf("a run used after its session ended: err %v, same session %v", err, next != nil && next.Live.ID() == first.Live.ID())
	}
}

// TestParseKey accepts only a known agent and a printable id, so a bad
// value never names some other run.
func TestParseKey(t *testing.T) {
	tests := []struct {
		in   string
		want RunKey
		err  string
	}{
		{in: "claude:abc-123", want: RunKey{Agent: "claude", ID: "abc-123"}},
		{in: "bridge:x", want: RunKey{Agent: "bridge", ID: "x"}},
		{in: "gemini", err: "agent:run-id"},
		{in: "vim:abc", err: "unknown agent"},
		{in: "codex:", err: "1 to 128"},
		{in: "codex:" + strings.Repeat("a", 129), err: "1 to 128"},
		{in: "codex:a b", err: "printable ASCII"},
		{in: "codex:a\x00", err: "printable ASCII"},
	}
	for _, tt := range tests {
		got, err := ParseRunKey(tt.in)
		switch {
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("ParseRunKey(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("ParseRunKey(%q) err = %v; want it to say %q", tt.in, err, tt.err)
		}
	}
}

// TestNewProjectAsksOnce: the calls of a new run in a project no root
// holds wait for one workspace card together, and all get the session
// it starts; a refusal reaches every waiting call and ends that session.
func TestNewProjectAsksOnce(t *testing.T) {
	for _, allow := range []bool{true, false} {
		t.Run(map[bool]string{true: "allowed", false: "refused"}[allow], func(t *testing.T) {
			project := t.TempDir()
			ws := &oneWorkspace{dir: t.TempDir(), askFor: project, answer: make(chan error)}
			g := newRunsIn(t, ws)
			key := RunKey{Agent: "claude", ID: "run-1"}
			const calls = 4
			var wg sync.WaitGroup
			states := make([]*State, calls)
			errs := make([]error, calls)
			for i := range calls {
				wg.Add(1)
				go func() {
					defer wg.Done()
					states[i], errs[i] = g.Use(t.Context(), key, RunStart{Token: "tok", Transport: "hook", Cwd: project})
				}()
			}
			// Every call shares the one card before the person answers it: a
			// call that came after a refusal would rightly ask again.
			waitfor.For(t, 10*time.Second, "the workspace card, shared by every call", func() bool {
				g.mu.Lock()
				defer g.mu.Unlock()
				w := g.starting[key]
				return ws.asked.Load() == 1 && w != nil && w.waiters == calls-1
			})
			if allow {
				ws.answer <- nil
			} else {
				ws.answer <- errors.New("The person did not allow it")
			}
			wg.Wait()
			if n := ws.asked.Load(); n != 1 {
				t.Fatalf("%d cards for one run, want 1", n)
			}
			for i := range calls {
				if allow && (errs[i] != nil || states[i] != states[0] || states[i].Workspaces[0] != project) {
					t.Fatalf("call %d: %v, state %p (first %p)", i, errs[i], states[i], states[0])
				}
				if !allow && (errs[i] == nil || !strings.Contains(errs[i].Error(), "did not allow")) {
					t.Fatalf("call %d after a refusal: %v", i, errs[i])
				}
			}
		})
	}
}

// A run its bridge began and its hooks then reach names both routes, in
// the order they came, in the session's record and in the API's label.
func TestRunRecordsEveryTransport(t *testing.T) {
	ctx := t.Context()
	g := newRuns(t)
	tests := []struct {
		name   string
		routes []string
		want   string
		label  string
	}{
		{"bridge only", []string{TransportStdio, TransportStdio}, "stdio", "MCP over stdio, through the gatehouse mcp bridge"},
		{"hook only", []string{TransportHook}, "hook", "the agent's own tools, through its gatehouse hooks"},
		{"bridge, then hooks", []string{TransportStdio, TransportHook, TransportStdio, TransportHook}, "stdio+hook",
			"MCP over stdio, through the gatehouse mcp bridge; and the agent's own tools, through its gatehouse hooks"},
		{"hooks, then bridge", []string{TransportHook, TransportStdio}, "hook+stdio",
			"the agent's own tools, through its gatehouse hooks; and MCP over stdio, through the gatehouse mcp bridge"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key := RunKey{Agent: "claude", ID: "run-" + string(rune('a'+i))}
			var st *State
			for _, r := range tt.routes {
				s, err := g.Use(ctx, key, RunStart{Token: "tok", Transport: r})
				if err != nil {
					t.Fatal(err)
				}
				st = s
			}
			if got := st.Live.Snapshot().Transport; got != tt.want {
				t.Errorf("live transport = %q, want %q", got, tt.want)
			}
			var saved string
			if err := g.cfg.Sessions.db.QueryRowContext(ctx, `SELECT transport FROM sessions WHERE id = ?`, st.Live.ID()).Scan(&saved); err != nil {
				t.Fatal(err)
			}
			if saved != tt.want {
				t.Errorf("saved transport = %q, want %q", saved, tt.want)
			}
			stored, err := g.cfg.Sessions.Lookup(ctx, st.Live.ID())
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(stored)
			if err != nil {
				t.Fatal(err)
			}
			var out map[string]any
			if err := json.Unmarshal(b, &out); err != nil {
				t.Fatal(err)
			}
			if out["transport"] != tt.want || out["transport_label"] != tt.label || out["id"] != st.Live.ID() || out["calls"] == nil {
				t.Errorf("JSON = %s\nwant transport %q, transport_label %q and the other fields", b, tt.want, tt.label)
			}
		})
	}
}
