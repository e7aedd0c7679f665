package session

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/db"
	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

type recorded struct {
	mu       sync.Mutex
	kinds    []string
	payloads []map[string]any
}

func (r *recorded) emit(_ context.Context, kind, _, _ string, payload any) {
	r.mu.Lock()
	p, _ := payload.(map[string]any)
	r.kinds = append(r.kinds, kind)
	r.payloads = append(r.payloads, p)
	r.mu.Unlock()
}

func newManager(t *testing.T) (*Manager, *recorded) {
	t.Helper()
	d, err := db.Open(t.Context(), filepath.Join(t.TempDir(), "g.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	r := &recorded{}
	return NewManager(t.Context(), d, r.emit, slog.New(slog.NewTextHandler(io.Discard, nil))), r
}

func TestLifecycle(t *testing.T) {
	ctx := t.Context()
	m, rec := newManager(t)
	l, err := m.Start(ctx, StartRequest{Client: "default", Transport: "http", Workspaces: []string{"/ws"}})
	if err != nil {
		t.Fatal(err)
	}
	m.SetClientInfo(ctx, l.ID(), "claude-code", "2.1")
	m.Count(l.ID(), Counters{Calls: 2, Allowed: 1, Denied: 1})
	if err := m.Admit(ctx, l.ID()); err != nil {
		t.Fatalf("Admit: %v", err)
	}
	m.End(ctx, l.ID(), "client disconnected")
	if l.Context().Err() == nil {
		t.Fatal("ended session's context not cancelled")
	}
	if err := m.Admit(ctx, l.ID()); !errors.Is(err, ErrNotActive) {
		t.Fatalf("Admit after end = %v", err)
	}
	got, err := m.Lookup(ctx, l.ID())
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != Ended || got.Calls != 2 || got.ClientName != "claude-code" || got.EndedAt == nil || got.Workspaces[0] != "/ws" {
		t.Fatalf("Lookup = %+v", got)
	}
	if _, err := m.Lookup(ctx, "s_nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Lookup unknown = %v", err)
	}
	if len(rec.kinds) != 2 || rec.kinds[0] != "session.start" || rec.kinds[1] != "session.end" {
		t.Fatalf("events = %v", rec.kinds)
	}
}

func TestPauseBlocksUntilResume(t *testing.T) {
	ctx := t.Context()
	m, _ := newManager(t)
	l, _ := m.Start(ctx, StartRequest{Client: "c"})
	if !m.Pause(ctx, "human", "lunch") {
		t.Fatal("first Pause reported no change")
	}
	if m.Pause(ctx, "human", "again") {
		t.Fatal("second Pause reported a change")
	}
	done := make(chan error, 1)
	go func() { done <- m.Admit(ctx, l.ID()) }()
	waitfor.For(t, 10*time.Second, "a call waiting on the pause", func() bool { return m.Switches().Waiting == 1 })
	select {
	case err := <-done:
		t.Fatalf("Admit returned while paused: %v", err)
	default:
	}
	if r := m.Resume(ctx, "human", "back"); !r.WasPaused || r.WasKilled {
		t.Fatalf("Resume = %+v", r)
	}
	if r := m.Resume(ctx, "human", ""); r.WasPaused || r.WasKilled {
		t.Fatalf("second Resume = %+v, want nothing lifted", r)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Admit after resume: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Admit still blocked after resume")
	}
}

func TestKillCancelsAndRefusesUntilResume(t *testing.T) {
	ctx := t.Context()
	m, rec := newManager(t)
	a, _ := m.Start(ctx, StartRequest{Client: "a"})
	b, _ := m.Start(ctx, StartRequest{Client: "b"})
	m.Pause(ctx, "human", "")
	waiting := make(chan error, 1)
	go func() { waiting <- m.Admit(ctx, a.ID()) }()
	if n := m.Kill(ctx, "human", "test"); n != 2 {
		t.Fatalf("Kill stopped %d sessions", n)
	}
	for _, l := range []*Live{a, b} {
		if !errors.Is(context.Cause(l.Context()), ErrKilled) {
			t.Fatalf("session ctx cause = %v", context.Cause(l.Context()))
		}
	}
	select {
	case err := <-waiting:
		if err == nil {
			t.Fatal("paused call admitted after kill")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("paused call not released by kill")
	}
	if _, err := m.Start(ctx, StartRequest{Client: "c"}); !errors.Is(err, ErrKilled) {
		t.Fatalf("Start after kill = %v", err)
	}
	list, _ := m.List(ctx, ListFilter{Status: Killed})
	if len(list) != 2 {
		t.Fatalf("killed sessions listed = %d", len(list))
	}
	m.Resume(ctx, "human", "")
	if _, err := m.Start(ctx, StartRequest{Client: "c"}); err != nil {
		t.Fatalf("Start after resume: %v", err)
	}
	if st := m.Switches(); st.Killed || st.Paused || st.Active != 1 {
		t.Fatalf("Switches = %+v", st)
	}
	_ = rec
}

func TestRecoverEndsStaleSessions(t *testing.T) {
	ctx := t.Context()
	m, _ := newManager(t)
	l, _ := m.Start(ctx, StartRequest{Client: "a"})
	// A new manager over the same DB is a restarted daemon.
	m2 := NewManager(ctx, m.db, m.emit, m.logger)
	if err := m2.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	got, _ := m2.Lookup(ctx, l.ID())
	if got.Status != Ended || got.EndReason != "daemon restarted" {
		t.Fatalf("after recover: %+v", got)
	}
}

func TestPausedCallThatGivesUpSaysWait(t *testing.T) {
	ctx := t.Context()
	m, rec := newManager(t)
	l, _ := m.Start(ctx, StartRequest{Client: "c"})
	m.Pause(ctx, "human", "reviewing")
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- m.Admit(cctx, l.ID()) }()
	waitfor.For(t, 10*time.Second, "a call waiting on the pause", func() bool { return m.Switches().Waiting == 1 })
	cancel()
	err := <-done
	if !errors.Is(err, ErrPaused) || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "wait, do not retry") {
		t.Fatalf("Admit = %v", err)
	}
	if m.Switches().Waiting != 0 {
		t.Fatalf("waiting = %d after the call gave up", m.Switches().Waiting)
	}
	var found bool
	for i, k := range rec.kinds {
		if k == "system.pause" && rec.payloads[i]["reason"] == "reviewing" {
			found = true
		}
	}
	if !found {
		t.Fatalf("no system.pause with the reason in %v", rec.kinds)
	}
}
