package audit

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// newGroupStore is a store whose commits would hold on for announced
// appends far longer than any test runs, so what shares a commit is decided
// by the announcements alone, not by timing.
func newGroupStore(t *testing.T) *Store {
	t.Helper()
	sqlDB := openTestDB(t, filepath.Join(t.TempDir(), "gatehouse.db"))
	s, err := Open(t.Context(), sqlDB, nil, Options{GroupCommitDelay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func appendSoon(t *testing.T, s *Store, ctx context.Context, e Event) <-chan Result {
	return appendSoonAs(t, ctx, e, s.Append)
}

func appendSoonAs(t *testing.T, ctx context.Context, e Event, appendFn func(context.Context, Event) (Event, error)) <-chan Result {
	t.Helper()
	ch := make(chan Result, 1)
	go func() {
		got, err := appendFn(ctx, e)
		ch <- Result{Event: got, Err: err}
	}()
	return ch
}

func waitResult(t *testing.T, ch <-chan Result, what string) Result {
	t.Helper()
	select {
	case r := <-ch:
		if r.Err != nil {
			t.Fatalf("%s: %v", what, r.Err)
		}
		return r
	case <-time.After(30 * time.Second):
		t.Fatalf("%s never committed", what)
	}
	return Result{}
}

func TestCommitHoldsOnForAnAnnouncedAppend(t *testing.T) {
	s := newGroupStore(t)
	ctx := t.Context()
	ann := s.Announce()
	defer ann.Settle()
	first := appendSoon(t, s, ctx, ev("a", "tool.result", ActorSystem, `{}`))
	select {
	case r := <-first:
		t.Fatalf("committed without waiting for the announced append: %+v", r)
	case <-time.After(100 * time.Millisecond):
	}
	second := appendSoonAs(t, ctx, ev("b", "tool.result", ActorSystem, `{}`), ann.Append)
	r1, r2 := waitResult(t, first, "first"), waitResult(t, second, "second")
	if r1.Event.Seq != 1 || r2.Event.Seq != 2 || s.commits.Load() != 1 {
		t.Fatalf("not one commit (%d commits): %+v / %+v", s.commits.Load(), r1.Event, r2.Event)
	}
	if n := s.announced.Load(); n != 0 {
		t.Fatalf("%d announcements left after the append", n)
	}
}

func TestAWithdrawnAnnouncementReleasesTheCommit(t *testing.T) {
	s := newGroupStore(t)
	ctx := t.Context()
	ann := s.Announce()
	first := appendSoon(t, s, ctx, ev("a", "tool.result", ActorSystem, `{}`))
	select {
	case r := <-first:
		t.Fatalf("committed without waiting for the announced append: %+v", r)
	case <-time.After(100 * time.Millisecond):
	}
	ann.Settle()
	ann.Settle() // a second call does nothing
	waitResult(t, first, "append after the announcement was withdrawn")
	if n := s.announced.Load(); n != 0 {
		t.Fatalf("announced = %d", n)
	}
}

// A lone caller, or one whose own announcement is its only one, never
// waits for company; nor do rows that do not wait for the disk.
func TestNoAnnouncedSiblingNoWait(t *testing.T) {
	s := newGroupStore(t)
	ctx := t.Context()
	waitResult(t, appendSoon(t, s, ctx, ev("a", "tool.result", ActorSystem, `{}`)), "lone append")
	own := s.Announce()
	defer own.Settle()
	waitResult(t, appendSoonAs(t, ctx, ev("a", "tool.result", ActorSystem, `{}`), own.Append), "append settling its own announcement")
	other := s.Announce()
	defer other.Settle()
	if _, err := s.AppendWritten(ctx, ev("a", "tool.call", ActorSystem, `{}`)); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-s.Queue(ctx, ev("a", "exec.started", ActorSystem, `{}`)):
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a queued row waited for an announced append")
	}
}
