package netguard

import (
	"errors"
	"net/netip"
)

// ErrBlocked matches (errors.Is) every refusal by the guard.
var ErrBlocked = errors.New("blocked by the fetch guard")

// BlockedError says which URL, host or address was refused and why.
type BlockedError struct {
	URL    string     // without credentials or query
	Host   string     // the host as checked, when known
	Addr   netip.Addr // the refused address, when one was involved
	Reason string
}

func (e *BlockedError) Error() string {
	what := e.URL
	if what == "" {
		what = e.Host
	}
	if e.Host != "" && e.Addr.IsValid() && e.Host != e.Addr.String() {
		return "refused to fetch " + what + ": " + e.Host + " is " + e.Addr.String() + ", " + e.Reason
	}
	return "refused to fetch " + what + ": " + e.Reason
}

// Is makes errors.Is(err, ErrBlocked) true.
func (e *BlockedError) Is(target error) bool { return target == ErrBlocked }
