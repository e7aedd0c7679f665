package daemon

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/atomicfile"
	"github.com/gatehouse-dev/gatehouse/backend/audit"
	"github.com/gatehouse-dev/gatehouse/backend/datadir"
	"github.com/gatehouse-dev/gatehouse/backend/listen"
)

// serve listens on loopback TCP and the control socket, serves until ctx
// ends or a server fails, then shuts down: calls first, then requests,
// then sessions, each audited.
func (d *Daemon) serve(ctx context.Context) (err error) {
	opts, logger := d.opts, d.logger
	tcp, err := listen.TCP(opts.Listen, opts.Public, opts.MaxConnections)
	if err != nil {
		return err
	}
	d.addr = tcp.Addr()
	sock, err := listen.Unix(filepath.Join(opts.DataDir, datadir.ControlSocket), logger)
	if err != nil {
		tcp.Close()
		return err
	}
	d.handler = d.busy.wrap(d.buildHandler())
	// Recorded before the first request is served, so a timeline read as
	// soon as the daemon answers starts with it.
	d.Emit(ctx, "system.start", audit.ActorSystem, "", map[string]any{
		"version": opts.Version, "listen": d.addr.String(), "workspaces": opts.Workspaces, "pid": os.Getpid(),
	})

	// Requests (SSE streams above all) see this context end at shutdown.
	reqCtx, stopRequests := context.WithCancel(context.WithoutCancel(ctx))
	defer stopRequests()
	servers := []*http.Server{d.newServer(reqCtx), d.newServer(reqCtx)}
	var wg sync.WaitGroup
	serveErr := make(chan error, 2)
	for i, ln := range []net.Listener{tcp, sock} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := servers[i].Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				serveErr <- err
			}
		}()
	}
	if a, ok := d.addr.(*net.TCPAddr); ok && opts.Egress != nil {
		// Why: a host port the config lists must not lead a command to
		// the daemon's own API.
		opts.Egress.Reserve(a.Port)
	}
	addrPath := filepath.Join(opts.DataDir, datadir.AddrFile)
	if err := atomicfile.Write(addrPath, []byte(d.addr.String()+"\n"), 0o600); err != nil {
		logger.Warn("write addr file", "err", err)
	}
	defer os.Remove(addrPath)

	logger.Info("gatehouse daemon ready", "listen", d.addr.String(), "data", opts.DataDir, "workspaces", opts.Workspaces)
	if opts.Ready != nil {
		opts.Ready(d)
	}
	err = d.wait(ctx, serveErr)

	logger.Info("gatehouse daemon shutting down")
	reason := stopReason(ctx)
	d.stopCalls(reason)
	// Exposures end with the daemon and never come back open.
	d.exposures.Close(context.WithoutCancel(ctx), "", "daemon stopped")
	stopRequests()
	shutCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, s := range servers {
		_ = s.Shutdown(shutCtx)
	}
	wg.Wait()
	for _, info := range d.liveSessions() {
		d.sessions.End(shutCtx, info, "daemon stopped")
	}
	d.runs.Close(shutCtx)
	d.Emit(shutCtx, "system.stop", audit.ActorSystem, "", map[string]any{"reason": reason.Why})
	return err
}

// wait runs until ctx ends or a server fails (its error), flushing
// session counters every few seconds meanwhile.
func (d *Daemon) wait(ctx context.Context, serveErr <-chan error) error {
	flush := time.NewTicker(5 * time.Second)
	defer flush.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-serveErr:
			d.logger.Error("server stopped", "err", err)
			return err
		case <-flush.C:
			d.sessions.Flush(ctx)
		}
	}
}
