package approval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/db"
	"github.com/gatehouse-dev/gatehouse/backend/session"
	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

type events struct {
	mu    sync.Mutex
	kinds []string
}

func (e *events) emit(_ context.Context, kind, _, _, _ string, _ any) {
	e.mu.Lock()
	e.kinds = append(e.kinds, kind)
	e.mu.Unlock()
}

func newBroker(t *testing.T, timeout time.Duration) (*Broker, *events) {
	t.Helper()
	d, err := db.Open(t.Context(), filepath.Join(t.TempDir(), "g.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	ev := &events{}
	return New(d, ev.emit, slog.New(slog.NewTextHandler(io.Discard, nil)), Options{Timeout: timeout}), ev
}

// waitPending returns the first pending request once it is filed.
func waitPending(t *testing.T, b *Broker) Request {
	t.Helper()
	var p []Request
	waitfor.For(t, 5*time.Second, "a pending request", func() bool {
		p = b.Pending()
		return len(p) > 0
	})
	return p[0]
}

// askAsync files req in the background; its decision arrives on the
// channel, and an error from Ask fails the test.
func askAsync(t *testing.T, b *Broker, req Request) <-chan Decision {
	got := make(chan Decision, 1)
	go func() {
		d, err := b.Ask(t.Context(), req)
		if err != nil {
			t.Error(err)
		}
		got <- d
	}()
	return got
}

func TestDecisions(t *testing.T) {
	tests := []struct {
		name     string
		decision Decision
		wantOK   bool
		scope    Scope
	}{
		{"allow once", Decision{Allow: true}, true, ScopeOnce},
		{"allow session", Decision{Allow: true, Scope: ScopeSession}, true, ScopeSession},
		{"allow always", Decision{Allow: true, Scope: ScopeAlways}, true, ScopeAlways},
		{"deny with message", Decision{Allow: false, Message: "use the test db"}, false, ScopeOnce},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, ev := newBroker(t, time.Minute)
			got := askAsync(t, b, Request{Session: "s", CallID: "c", Tool: "run_command", Argv: []string{"make"}})
			req := waitPending(t, b)
			if _, err := b.Decide(t.Context(), req.ID, tt.decision); err != nil {
				t.Fatal(err)
			}
			d := <-got
			if d.Allow != tt.wantOK || d.Scope != tt.scope || d.By != "human" || d.Message != tt.decision.Message {
				t.Fatalf("decision = %+v", d)
			}
			if _, err := b.Decide(t.Context(), req.ID, tt.decision); !errors.Is(err, ErrNotFound) {
				t.Fatalf("second decision = %v, want ErrNotFound", err)
			}
			if len(ev.kinds) != 2 || ev.kinds[0] != "approval.requested" || ev.kinds[1] != "approval.decided" {
				t.Fatalf("events = %v", ev.kinds)
			}
		})
	}
}

func TestBadScope(t *testing.T) {
	b, _ := newBroker(t, time.Minute)
	go b.Ask(t.Context(), Request{Session: "s"})
	req := waitPending(t, b)
	if _, err := b.Decide(t.Context(), req.ID, Decision{Allow: true, Scope: "forever"}); !errors.Is(err, ErrBadScope) {
		t.Fatalf("err = %v", err)
	}
	b.DenyAll(t.Context(), "system:kill", "cleanup")
}

func TestTimeoutDenies(t *testing.T) {
	b, _ := newBroker(t, 50*time.Millisecond)
	d, err := b.Ask(t.Context(), Request{Session: "s"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Allow || d.By != "system:timeout" {
		t.Fatalf("decision after timeout = %+v", d)
	}
	var status string
	b.db.QueryRow(`SELECT status FROM approvals`).Scan(&status)
	if status != "expired" {
		t.Fatalf("status = %q", status)
	}
}

func TestKillAndSessionEnd(t *testing.T) {
	b, _ := newBroker(t, time.Minute)
	ctx, cancel := context.WithCancelCause(t.Context())
	got := make(chan Decision, 2)
	go func() { d, _ := b.Ask(ctx, Request{Session: "s"}); got <- d }()
	waitPending(t, b)
	cancel(session.ErrKilled)
	if d := <-got; d.Allow || d.By != "system:kill" {
		t.Fatalf("after kill: %+v", d)
	}
	go func() { d, _ := b.Ask(t.Context(), Request{Session: "s"}); got <- d }()
	go func() { d, _ := b.Ask(t.Context(), Request{Session: "t"}); got <- d }()
	waitfor.For(t, 10*time.Second, "two pending requests", func() bool { return len(b.Pending()) >= 2 })
	if n := b.DenyAll(t.Context(), "system:kill", "stopped"); n != 2 {
		t.Fatalf("DenyAll = %d", n)
	}
	for i := 0; i < 2; i++ {
		if d := <-got; d.Allow {
			t.Fatal("allowed after DenyAll")
		}
	}
}

// askerGone is the cause a run's proxy ends its questions with.
type askerGone struct{}

func (askerGone) Error() string            { return "gone" }
func (askerGone) WithdrawalReason() string { return "the command ended before anyone answered" }

// A question whose asker has gone is withdrawn with the reason the
// asker's cause gives; a bare cancel keeps the generic one.
func TestWithdrawnSaysWhy(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cause error
		want  string
	}{
		{"asker gone", askerGone{}, "the command ended before anyone answered"},
		{"cancelled", context.Canceled, "the agent cancelled the call before anyone answered"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := newBroker(t, time.Minute)
			ctx, cancel := context.WithCancelCause(t.Context())
			got := make(chan Decision, 1)
			go func() { d, _ := b.Ask(ctx, Request{Session: "s"}); got <- d }()
			waitPending(t, b)
			cancel(tc.cause)
			if d := <-got; d.Allow || d.By != "system:withdrawn" || d.Message != tc.want {
				t.Fatalf("withdrawn as %+v, want the message %q", d, tc.want)
			}
		})
	}
}

func TestExpireStaleOnRestart(t *testing.T) {
	b, ev := newBroker(t, time.Minute)
	go b.Ask(t.Context(), Request{Session: "s", CallID: "c1"})
	waitPending(t, b)
	// A new broker over the same DB is a restarted daemon.
	b2 := New(b.db, ev.emit, b.logger, Options{Timeout: time.Minute})
	if err := b2.ExpireStale(t.Context()); err != nil {
		t.Fatal(err)
	}
	var status, by string
	b.db.QueryRow(`SELECT status, decided_by FROM approvals`).Scan(&status, &by)
	if status != "expired" || by != "system:restart" {
		t.Fatalf("status %q by %q", status, by)
	}
	b.DenyAll(t.Context(), "system:kill", "cleanup")
}

// TestFloodCap: one session cannot put more than its cap of cards in front
// of the person; the extra requests fail at once, other sessions still ask.
func TestFloodCap(t *testing.T) {
	b, _ := newBroker(t, time.Minute)
	b.maxPerSess = 3
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	for i := 0; i < 3; i++ {
		go b.Ask(ctx, Request{Session: "flood", CallID: fmt.Sprint(i)})
	}
	waitCount(t, b, 3)
	var tm *TooManyError
	if _, err := b.Ask(ctx, Request{Session: "flood", CallID: "x"}); !errors.As(err, &tm) || tm.Max != 3 {
		t.Fatalf("fourth card: %v", err)
	}
	go b.Ask(ctx, Request{Session: "other", CallID: "y"})
	waitCount(t, b, 4)
	if n := b.DenySession(ctx, "flood", "too many"); n != 3 {
		t.Fatalf("denied %d", n)
	}
	if p := b.Pending(); len(p) != 1 || p[0].Session != "other" {
		t.Fatalf("left: %+v", p)
	}
}

func waitCount(t *testing.T, b *Broker, n int) {
	t.Helper()
	waitfor.For(t, 10*time.Second, fmt.Sprintf("%d pending requests", n), func() bool { return len(b.Pending()) == n })
}
