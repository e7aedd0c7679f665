package daemon

import (
	"github.com/gatehouse-dev/gatehouse/backend/call"
	"github.com/gatehouse-dev/gatehouse/backend/egress"
)

// egressDep keeps a nil proxy a nil interface: no proxy, no network.
func egressDep(p *egress.Proxy) call.Egress {
	if p == nil {
		return nil
	}
	return p
}
