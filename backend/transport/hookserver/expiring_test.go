package hookserver

import "testing"

// TestExpiringHandsOutOnce: a value is taken once; an expired one is not
// taken and is swept when the next is added.
func TestExpiringHandsOutOnce(t *testing.T) {
	e := newExpiring[int](ticketTTL)
	e.put("a", 1)
	if v, ok := e.take("a"); !ok || v != 1 {
		t.Fatalf("take = %d, %v", v, ok)
	}
	if _, ok := e.take("a"); ok {
		t.Fatal("a value was taken twice")
	}

	gone := newExpiring[int](-1) // every entry has expired when made
	gone.put("old", 1)
	if _, ok := gone.take("old"); ok {
		t.Fatal("an expired value was taken")
	}
	gone.put("x", 2)
	gone.put("y", 3)
	if len(gone.m) != 1 {
		t.Fatalf("%d entries kept, want the expired ones swept", len(gone.m))
	}
}
