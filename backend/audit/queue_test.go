package audit

import (
	"context"
	"testing"
	"time"
)

func TestQueuedRowsCommitWithTheNextAppendInOrder(t *testing.T) {
	s, _, _ := newTestStore(t)
	ctx := context.Background()
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
	case r := <-s.Queue(context.Background(), ev("s", "exec.started", ActorSystem, `{}`)):
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
	q := s.Queue(context.Background(), ev("s", "exec.finished", ActorSystem, `{}`))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if r := <-q; r.Err != nil || r.Event.Seq != 2 {
		t.Fatalf("queued before close: %+v", r)
	}
}
