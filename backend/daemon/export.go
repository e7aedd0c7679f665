package daemon

import (
	"context"
	"sync"

	"github.com/gatehouse-dev/gatehouse/backend/export"
)

// ExportOptions are the config's [export]: where the audit goes besides
// the data dir. Zero: nowhere.
type ExportOptions struct {
	OTLPEndpoint string
	OTLPHeaders  map[string]string
	OCSFFile     string
	MaxBacklog   int64
}

// startExport follows the audit for each configured sink in its own
// goroutine, off every call's path; the returned stop waits for it, and
// runs before the audit store closes. A sink that cannot be built (the
// config is validated first, so only a bug) is logged and left out.
func (d *Daemon) startExport(ctx context.Context) (stop func()) {
	o := d.opts.Export
	var sinks []export.Sink
	if o.OTLPEndpoint != "" {
		s, err := export.NewOTLP(export.OTLPOptions{Endpoint: o.OTLPEndpoint, Headers: o.OTLPHeaders, Version: d.opts.Version})
		if err != nil {
			d.logger.Error("audit export to the collector is off", "err", err)
		} else {
			sinks = append(sinks, s)
		}
	}
	if o.OCSFFile != "" {
		sinks = append(sinks, export.NewOCSFFile(o.OCSFFile, d.opts.Version))
	}
	d.export = export.New(export.Options{Audit: d.audit, DB: d.db, Logger: d.logger, Sinks: sinks, MaxBacklog: o.MaxBacklog})
	if len(sinks) == 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Go(func() { d.export.Run(ctx) })
	for _, s := range sinks {
		d.logger.Info("exporting the audit", "sink", string(s.Name()), "target", s.Target())
	}
	return func() { cancel(); wg.Wait() }
}
