package approval

import (
	"reflect"
	"slices"
	"testing"
	"time"
)

// TestCloseDeniesWaitingAndLater: Close denies the request already waiting
// and any request filed afterwards, each recorded as requested then decided.
func TestCloseDeniesWaitingAndLater(t *testing.T) {
	b, ev := newBroker(t, time.Minute)
	got := askAsync(t, b, Request{Session: "s", CallID: "c1", Tool: "run_command"})
	waitPending(t, b)
	if n := b.Close(t.Context(), "system:shutdown", "stopping"); n != 1 {
		t.Fatalf("Close denied %d, want 1", n)
	}
	want := Decision{Allow: false, Scope: ScopeOnce, By: "system:shutdown", Message: "stopping"}
	if d := <-got; !reflect.DeepEqual(d, want) {
		t.Fatalf("waiting request got %+v, want %+v", d, want)
	}
	d, err := b.Ask(t.Context(), Request{Session: "s", CallID: "c2", Tool: "run_command"})
	if err != nil || !reflect.DeepEqual(d, want) {
		t.Fatalf("request after Close: %+v %v, want %+v", d, err, want)
	}
	if p := b.Pending(); len(p) != 0 {
		t.Fatalf("still pending after Close: %+v", p)
	}
	ev.mu.Lock()
	defer ev.mu.Unlock()
	if w := []string{"approval.requested", "approval.decided", "approval.requested", "approval.decided"}; !slices.Equal(ev.kinds, w) {
		t.Fatalf("events %v, want %v", ev.kinds, w)
	}
}
