package audit

import (
	"testing"
	"time"
)

func TestQueuedRowsCommitWithTheNextAppendInOrder(t *testing.T) {
	s, _, _ := newTestStore(t)
	ctx := t.Context()
	q1 := s.Queue(ctx, ev("s", "tool.validated", ActorSystem, `{}`))
	q2 := s.Queue(ctx, ev("s", "policy.decision", ActorPolicy, `{}`))
	last, err := s.Append(ctx, ev("s", "tool.result", ActorSystem, `{}`))
	if err != nil {
		t.Fatal(err)
	}
	// The Append returning means the queued rows before it are durable too.
	r1, r2 := <-q1, <-q2
	if r1.Err != nil || r2.Err != nil || r1.Event.Seq+1 != r2.Event.Seq || r2.Event.Seq+1 != last.Seq {
		t.Fatalf("seqs %d %d %d (%v %v)", r1.Event.Seq, r2.Event.Seq, last.Seq, r1.Err, r2.Err)
	}
}

func TestQueuedRowsCommitOnTheirOwn(t *testing.T) {
	s, _, _ := newTestStore(t)
	start := time.Now()
	select {
	case r := <-s.Queue(t.Context(), ev("s", "exec.started", ActorSystem, `{}`)):
		if r.Err != nil || r.Event.Seq != 1 {
			t.Fatalf("queued: %+v", r)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a queued row alone was never committed")
	}
	if d := time.Since(start); d < lazyCommitDelay/2 {
		t.Logf("committed after %v", d) // the timer may fire early under load; only the upper bound matters
	}
	// Close commits what is still queued.
	q := s.Queue(t.Context(), ev("s", "exec.finished", ActorSystem, `{}`))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if r := <-q; r.Err != nil || r.Event.Seq != 2 {
		t.Fatalf("queued before close: %+v", r)
	}
}

// A written row is in the database, readable by others, before its fsync;
// the next Append's commit waits for the disk again and covers it.
func TestWrittenRowsAreVisibleAndTheNextAppendIsDurable(t *testing.T) {
	s, sqlDB, _ := newTestStore(t)
	ctx := t.Context()
	w, err := s.AppendWritten(ctx, ev("s", "tool.call", ActorSystem, `{}`))
	if err != nil || w.Seq != 1 {
		t.Fatalf("written: %+v %v", w, err)
	}
	if s.durable {
		t.Error("a written-only commit waited for the disk")
	}
	var n int
	if err := sqlDB.QueryRowContext(ctx, "SELECT count(*) FROM audit_events").Scan(&n); err != nil || n != 1 {
		t.Fatalf("another connection sees %d rows (%v)", n, err)
	}
	if _, err := s.Append(ctx, ev("s", "tool.result", ActorSystem, `{}`)); err != nil {
		t.Fatal(err)
	}
	if !s.durable {
		t.Error("Append did not wait for the disk")
	}
	var mode int
	if err := s.wconn.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&mode); err != nil || mode != 2 {
		t.Fatalf("writer's sync mode after Append = %d (%v), want 2 (FULL)", mode, err)
	}
}
