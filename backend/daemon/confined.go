package daemon

import (
	"context"
	"net/http"
	"path/filepath"

	"github.com/gatehouse-dev/gatehouse/backend/confined"
	"github.com/gatehouse-dev/gatehouse/backend/datadir"
	"github.com/gatehouse-dev/gatehouse/backend/transport/hookserver"
)

// openConfined makes the registry of whole-agent runs (`gatehouse run`).
// A run's agent listener is served by the daemon's own gated handler,
// which admits its connections as the run.
func (d *Daemon) openConfined() *confined.Runs {
	var proxy confined.Proxy
	if d.opts.Egress != nil {
		proxy = d.opts.Egress
	}
	backend := ""
	if d.opts.Sandbox != nil {
		backend = d.opts.Sandbox.Name()
	}
	var cps confined.Checkpoints
	if d.snapshots != nil {
		cps = d.snapshots
	}
	return confined.New(confined.Deps{
		Sessions: d.runs, Tokens: d.tokens, Network: d.runner, Proxy: proxy, Checkpoints: cps,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { d.handler.ServeHTTP(w, r) }),
		Backend: backend, Dir: filepath.Join(d.opts.DataDir, "runs"), Hidden: []string{d.opts.DataDir}, Emit: d.Emit, Logger: d.logger,
		Redacted: func(run string) string {
			return hookserver.ConfinedRedacted(filepath.Join(d.opts.DataDir, datadir.RedactedDir), run)
		},
		Written: d.EmitWritten,
		Queue: func(ctx context.Context, kind, actor, sess string, payload any) {
			d.RecordAsync(ctx, kind, actor, sess, "", payload)
		},
	})
}
