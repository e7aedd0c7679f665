package netguard

import (
	"errors"
	"fmt"
	"net/netip"
	"testing"
)

// The dialer is the last line: even if a blocked address were pinned by
// mistake, or a host was never admitted, no connection is made.
func TestDialerRefusesOnItsOwn(t *testing.T) {
	tr := newTrap(t, "tcp4", "127.0.0.1:0")
	g := New(Options{})
	p := &pins{m: map[string][]netip.Addr{"sneaky.test": {netip.MustParseAddr("127.0.0.1")}}}
	dial := g.dialer(p)
	for _, host := range []string{"sneaky.test", "never-admitted.test", "127.0.0.1"} {
		c, err := dial(t.Context(), "tcp", fmt.Sprintf("%s:%d", host, tr.port()))
		if err == nil {
			c.Close()
			t.Errorf("%s: dialled", host)
			continue
		}
		if !errors.Is(err, ErrBlocked) {
			t.Errorf("%s: %v is not a refusal", host, err)
		}
	}
	tr.untouched(t)
}
