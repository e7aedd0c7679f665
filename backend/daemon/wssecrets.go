package daemon

import (
	"github.com/gatehouse-dev/gatehouse/backend/wssecrets"
	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// workspaceSecrets makes the tracker that adds each workspace's secret
// values to the redactor: the files the sandbox hides, less those the
// config exposes (a command may read those, so their values are not
// secret from the agent). The config checked the patterns at load.
func (d *Daemon) workspaceSecrets() *wssecrets.Tracker {
	expose, err := protect.ParseExposure(d.opts.ExposeSecrets)
	if err != nil {
		d.logger.Warn("expose_secrets could not be read, so the values of every workspace secret are redacted", "err", err)
		expose = protect.Exposure{}
	}
	return wssecrets.New(d.redactor, expose, d.logger)
}
