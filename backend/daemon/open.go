package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/gatehouse-dev/gatehouse/backend/approval"
	"github.com/gatehouse-dev/gatehouse/backend/audit"
	"github.com/gatehouse-dev/gatehouse/backend/call"
	"github.com/gatehouse-dev/gatehouse/backend/datadir"
	"github.com/gatehouse-dev/gatehouse/backend/db"
	"github.com/gatehouse-dev/gatehouse/backend/secrets"
	"github.com/gatehouse-dev/gatehouse/backend/session"
	"github.com/gatehouse-dev/gatehouse/backend/snapshot"
	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// closeStack undoes start-up steps in reverse order at shutdown.
type closeStack []func()

func (c *closeStack) push(f func()) { *c = append(*c, f) }

func (c *closeStack) close() {
	for i := len(*c) - 1; i >= 0; i-- {
		(*c)[i]()
	}
}

// sweepOrphans removes sandbox containers a crashed daemon left: with the
// data dir locked no other daemon of ours runs, so any container still
// labelled as ours is an orphan.
func sweepOrphans(ctx context.Context, b sandbox.Backend, logger *slog.Logger) {
	sw, ok := b.(interface {
		Sweep(context.Context) (int, error)
	})
	if !ok {
		return
	}
	if _, err := sw.Sweep(ctx); err != nil {
		logger.Warn("could not remove sandbox containers left by a previous run", "err", err)
	}
}

// openStores opens what the daemon keeps in the data dir, in order: the
// database and audit store, tokens, secrets, sessions (finishing what a
// crash left), approvals, the policy, the checkpoint store and staged
// runs a crash interrupted. Each step's undo goes on closers.
func (d *Daemon) openStores(ctx context.Context, closers *closeStack) error {
	opts, logger := d.opts, d.logger
	sqlDB, err := db.Open(ctx, filepath.Join(opts.DataDir, datadir.DBFile), logger)
	if err != nil {
		return fmt.Errorf("open database: %w", err)
	}
	closers.push(func() { sqlDB.Close() })
	d.db = sqlDB
	store, err := audit.Open(ctx, sqlDB, logger, audit.Options{})
	if err != nil {
		return fmt.Errorf("open audit store: %w", err)
	}
	closers.push(func() { store.Close() })
	d.audit = store
	if err := ensureTokens(ctx, sqlDB, opts.DataDir, d.tokens); err != nil {
		return err
	}
	secretStore, err := secrets.Open(opts.Secrets, os.LookupEnv)
	if err != nil {
		// The secrets that resolved still load; the rest is reported.
		logger.Warn("some configured secrets could not be loaded", "err", err)
	}
	d.secrets = secretStore
	d.redactor = secrets.NewLive(secretStore.Values(), secrets.HostSecrets(os.Environ()), d.tokenValues())
	d.wsSecrets = d.workspaceSecrets()
	// Sessions live under their own context so shutdown can end them after
	// the servers stop taking requests.
	sessCtx, stopSessions := context.WithCancel(context.WithoutCancel(ctx))
	closers.push(stopSessions)
	d.sessions = session.NewManager(sessCtx, sqlDB, d.Emit, logger)
	if err := d.sessions.Recover(ctx); err != nil {
		return err
	}
	d.approvals = approval.New(sqlDB, d.emitCall, logger, approval.Options{Timeout: opts.ApprovalTimeout, MaxPerSession: opts.MaxPendingPerSession, LocalWins: opts.LocalWins})
	if err := d.approvals.ExpireStale(ctx); err != nil {
		return err
	}
	pol, err := call.LoadPolicy(opts.PolicyPath, opts.Workspaces)
	if err != nil {
		return fmt.Errorf("load policy: %w", err)
	}
	for _, n := range pol.Get().Notices() {
		logger.Warn("policy notice", "notice", n)
	}
	d.policy = pol
	if !opts.SnapshotsDisabled {
		// Open also finishes a rollback a crash interrupted.
		d.snapshots, err = snapshot.Open(filepath.Join(opts.DataDir, "snapshots"), opts.Snapshots, logger)
		if err != nil {
			return fmt.Errorf("open the checkpoint store: %w", err)
		}
		closers.push(func() { d.snapshots.Close() })
	}
	if !opts.Unstaged {
		if err := d.recoverStaged(ctx, d.stageDir()); err != nil {
			return err
		}
	}
	return nil
}

// stageDir holds staged runs' layers, or "" when every run is unstaged.
func (d *Daemon) stageDir() string {
	if d.opts.Unstaged {
		return ""
	}
	return filepath.Join(d.opts.DataDir, StageDir)
}
