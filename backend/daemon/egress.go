package daemon

import (
	"github.com/gatehouse-dev/gatehouse/backend/egress"
	"github.com/gatehouse-dev/gatehouse/backend/toolcall"
)

// egressDep keeps a nil proxy a nil interface: no proxy, no network.
func egressDep(p *egress.Proxy) toolcall.Egress {
	if p == nil {
		return nil
	}
	return p
}
