package daemon

import (
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/exposure"
)

// exposures are `gatehouse public`'s listeners, with what the daemon sees
// but does not control beside them. They live in memory only.
type exposures struct {
	*exposure.Manager
	suspects *exposure.Suspects
}

func (e exposures) Seen() exposure.Seen { return e.suspects.Seen() }

// openExposures makes the manager (nothing open) and the suspects'
// record; the gate reports relayed requests to the latter.
func (d *Daemon) openExposures() exposures {
	return exposures{
		Manager: exposure.New(exposure.Deps{
			Cards: d.approvals, Emit: d.Emit, Logger: d.logger,
			Tunnel: d.opts.Tunnel, TunnelWait: time.Duration(d.opts.TunnelWaitS) * time.Second,
		}),
		suspects: &exposure.Suspects{Emit: d.Emit, Port: d.port},
	}
}
