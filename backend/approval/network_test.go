package approval

import (
	"testing"
	"time"
)

// A network card is filed (the database accepts the kind), shows its
// domain and port, and takes a session-wide allow.
func TestNetworkCard(t *testing.T) {
	b, _ := newBroker(t, time.Minute)
	got := askAsync(t, b, Request{Kind: KindNetwork, Session: "s", CallID: "c", Tool: "network", Domain: "pkgs.example.test", Port: 443})
	p := waitPending(t, b)
	if p.Kind != KindNetwork || p.Domain != "pkgs.example.test" || p.Port != 443 {
		t.Fatalf("pending %+v", p)
	}
	if _, err := b.Decide(t.Context(), p.ID, Decision{Allow: true, Scope: ScopeSession}); err != nil {
		t.Fatal(err)
	}
	if d := <-got; !d.Allow || d.Scope != ScopeSession {
		t.Fatalf("decision %+v", d)
	}
}
