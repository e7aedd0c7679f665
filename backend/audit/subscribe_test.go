package audit

import (
	"errors"
	"testing"
	"time"
)

// recv waits generously; on a loaded machine a slow receive is not a failure,
// only a missing one is.
func recv(t *testing.T, sub *Subscription) (Event, bool) {
	t.Helper()
	select {
	case e, ok := <-sub.C():
		return e, ok
	case <-time.After(30 * time.Second):
		t.Fatal("no event or close on the subscription within 30s")
		return Event{}, false
	}
}

func TestSubscriberGetsCommittedEventsInOrder(t *testing.T) {
	s, _, _ := newTestStore(t)
	ctx := t.Context()
	sub := s.Subscribe(100)
	defer sub.Close()
	var pending []<-chan Result
	for i := 0; i < 50; i++ {
		pending = append(pending, s.AppendAsync(ctx, ev("s", "tool.call", "agent:a", `{}`)))
	}
	for _, ch := range pending {
		<-ch
	}
	for want := int64(1); want <= 50; want++ {
		e, ok := recv(t, sub)
		if !ok || e.Seq != want || len(e.Hash) != 64 {
			t.Fatalf("got %+v ok=%v, want seq %d", e, ok, want)
		}
	}
	if sub.Err() != nil {
		t.Fatalf("Err = %v on a live subscription", sub.Err())
	}
}

func TestEventIsBufferedBeforeAppendReturns(t *testing.T) {
	s, _, _ := newTestStore(t)
	sub := s.Subscribe(4)
	defer sub.Close()
	e, err := s.Append(t.Context(), ev("s", "tool.call", "agent:a", `{}`))
	if err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-sub.C():
		if got.Seq != e.Seq {
			t.Fatalf("got seq %d, want %d", got.Seq, e.Seq)
		}
	default:
		t.Fatal("event not in the subscriber's buffer when Append returned")
	}
}

func TestSlowSubscriberIsDroppedNotWaitedFor(t *testing.T) {
	s, _, _ := newTestStore(t)
	ctx := t.Context()
	slow := s.Subscribe(2)
	fast := s.Subscribe(100)
	defer fast.Close()
	for i := 0; i < 10; i++ {
		if _, err := s.Append(ctx, ev("s", "tool.call", "agent:a", `{}`)); err != nil {
			t.Fatal(err)
		}
	}
	// The slow one holds what fit, then its channel is closed.
	for want := int64(1); want <= 2; want++ {
		if e, ok := recv(t, slow); !ok || e.Seq != want {
			t.Fatalf("slow subscriber got %+v ok=%v, want seq %d", e, ok, want)
		}
	}
	if _, ok := recv(t, slow); ok {
		t.Fatal("slow subscriber's channel still open")
	}
	if !errors.Is(slow.Err(), ErrSubscriberTooSlow) {
		t.Fatalf("slow.Err() = %v, want ErrSubscriberTooSlow", slow.Err())
	}
	slow.Close() // after being dropped: harmless
	for want := int64(1); want <= 10; want++ {
		if e, ok := recv(t, fast); !ok || e.Seq != want {
			t.Fatalf("fast subscriber got %+v ok=%v, want %d", e, ok, want)
		}
	}
}

func TestSubscriptionCloseAndStoreClose(t *testing.T) {
	s, _, _ := newTestStore(t)
	own := s.Subscribe(1)
	own.Close()
	own.Close()
	if _, ok := <-own.C(); ok || own.Err() != nil {
		t.Fatalf("after own Close: open=%v err=%v", ok, own.Err())
	}
	live := s.Subscribe(1)
	s.Close()
	if _, ok := <-live.C(); ok || !errors.Is(live.Err(), ErrClosed) {
		t.Fatalf("after store Close: open=%v err=%v", ok, live.Err())
	}
	late := s.Subscribe(1)
	if _, ok := <-late.C(); ok || !errors.Is(late.Err(), ErrClosed) {
		t.Fatalf("subscribe after Close: open=%v err=%v", ok, late.Err())
	}
}
