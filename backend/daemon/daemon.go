// Package daemon assembles the Gatehouse daemon: data dir, tokens, database,
// audit store, sessions, and the HTTP servers on loopback TCP and the unix
// control socket, all behind the HTTP gate.
package daemon

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/agentusage"
	"github.com/gatehouse-dev/gatehouse/backend/api"
	"github.com/gatehouse-dev/gatehouse/backend/approval"
	"github.com/gatehouse-dev/gatehouse/backend/audit"
	"github.com/gatehouse-dev/gatehouse/backend/buildcache"
	"github.com/gatehouse-dev/gatehouse/backend/call"
	"github.com/gatehouse-dev/gatehouse/backend/confined"
	"github.com/gatehouse-dev/gatehouse/backend/datadir"
	"github.com/gatehouse-dev/gatehouse/backend/egress"
	"github.com/gatehouse-dev/gatehouse/backend/export"
	"github.com/gatehouse-dev/gatehouse/backend/httpgate"
	"github.com/gatehouse-dev/gatehouse/backend/policy"
	"github.com/gatehouse-dev/gatehouse/backend/projects"
	"github.com/gatehouse-dev/gatehouse/backend/secrets"
	"github.com/gatehouse-dev/gatehouse/backend/session"
	"github.com/gatehouse-dev/gatehouse/backend/snapshot"
	"github.com/gatehouse-dev/gatehouse/backend/token"
	"github.com/gatehouse-dev/gatehouse/backend/transport/hookserver"
	"github.com/gatehouse-dev/gatehouse/backend/transport/mcpserver"
	"github.com/gatehouse-dev/gatehouse/backend/wssecrets"
	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// Options configure one daemon.
type Options struct {
	Listen  string
	DataDir string
	// Workspaces are the roots served without a card (--workspace and
	// [workspaces] roots); agents in other projects raise a card.
	Workspaces []string
	// ConfigPath is the config file "always" on a workspace card adds
	// roots to; "" keeps them for this run only.
	ConfigPath     string
	Public         bool
	AllowedOrigins []string
	MaxConnections int
	Mode           string
	// QueryToken accepts tokens in ?access_token= (test-only: conformance
	// tooling cannot send headers).
	QueryToken bool
	Version    string
	Logger     *slog.Logger
	// Sandbox confines run_command; nil refuses commands with advice.
	Sandbox sandbox.Backend
	// ExposeSecrets are the workspace secrets commands may read (the
	// config's [sandbox] expose_secrets).
	ExposeSecrets []string
	// Egress is the proxy commands reach the network through; nil gives
	// them no network.
	Egress *egress.Proxy
	// RunEnv gives commands the person's toolchains and build caches.
	RunEnv *call.RunEnv

	// PolicyPath is the user's policy file.
	PolicyPath string
	// Snapshots tunes checkpoints; Disabled runs calls uncheckpointed.
	Snapshots         snapshot.Options
	SnapshotsDisabled bool
	// Unstaged runs every command directly in the workspace, its effect
	// checked afterwards, even where the sandbox could stage it.
	Unstaged bool
	// Limits are each session's budgets.
	Limits session.Limits
	// UI is the built web UI served at /; nil serves a hint instead.
	UI fs.FS
	// ApprovalTimeout denies unanswered approvals (default 120 s).
	ApprovalTimeout time.Duration
	// MaxPendingPerSession caps the cards one session has waiting.
	MaxPendingPerSession int
	// Secrets are injected into matching commands and redacted everywhere.
	Secrets secrets.Config
	// Export sends the audit to a collector and/or an OCSF file.
	Export ExportOptions
	// Ready, if set, is called once the daemon accepts requests.
	Ready func(*Daemon)
	// Tunnel is the program started with every exposure ([public]
	// tunnel), TunnelWaitS how long its URL is waited for.
	Tunnel      []string
	TunnelWaitS int
	// LocalWins is how long a device's decision waits for one made on
	// the computer ([public] local_wins_ms; 0: the default).
	LocalWins time.Duration
}

// Daemon is a running daemon.
type Daemon struct {
	opts      Options
	logger    *slog.Logger
	db        *sql.DB
	audit     *audit.Store
	sessions  *session.Manager
	approvals *approval.Broker
	runner    *call.Runner
	policy    *call.PolicyHolder
	snapshots *snapshot.Store
	tokens    *token.Set
	logins    *token.OneTime
	secrets   *secrets.Store
	redactor  *secrets.Live
	wsSecrets *wssecrets.Tracker
	addr      net.Addr
	handler   http.Handler
	mux       http.Handler
	busy      inflight
	mcp       *mcpserver.Server
	runs      *session.Runs
	projects  *projects.Projects
	confined  *confined.Runs
	exposures exposures
	export    *export.Runner
	// usage reads the agents' own token counts (their transcripts).
	usage *agentusage.Reader
}

// Addr is the bound TCP address.
func (d *Daemon) Addr() net.Addr { return d.addr }

// Handler is the gated HTTP handler (the desktop app serves it in-process).
func (d *Daemon) Handler() http.Handler { return d.handler }

// LocalHandler serves the desktop window in the same process, with the
// control capability and no network in between.
func (d *Daemon) LocalHandler() http.Handler { return httpgate.InProcess(d.mux) }

// Sessions gives in-process surfaces access to the session switches.
func (d *Daemon) Sessions() *session.Manager { return d.sessions }

// Run starts the daemon and blocks until ctx is cancelled, then shuts down
// cleanly: in-flight requests get a grace period, sessions end, the audit
// store flushes.
func Run(ctx context.Context, opts Options) (err error) {
	tuneGC()
	if opts.MaxConnections <= 0 {
		opts.MaxConnections = 256
	}
	mode, err := policy.ParseMode(opts.Mode)
	if err != nil {
		return err
	}
	opts.Mode = string(mode)
	lock, err := prepareDataDir(opts.DataDir)
	if err != nil {
		return err
	}
	defer lock.Close()
	sweepOrphans(ctx, opts.Sandbox, opts.Logger)
	pruneRedacted(filepath.Join(opts.DataDir, datadir.RedactedDir), time.Now(), opts.Logger)

	d := &Daemon{opts: opts, logger: opts.Logger, tokens: &token.Set{}, logins: &token.OneTime{}, usage: &agentusage.Reader{Env: agentusage.EnvFromOS()}}
	var closers closeStack
	defer closers.close()
	if err := d.openStores(ctx, &closers); err != nil {
		return err
	}
	if err := d.startRunner(ctx); err != nil {
		return err
	}
	d.projects = d.openProjects()
	d.runs = session.NewRuns(session.RunsConfig{
		Sessions: d.sessions, Workspaces: d.projects, OnWorkspace: d.servesWorkspace, Mode: opts.Mode, Limits: opts.Limits, Logger: d.logger,
		TmpDir: filepath.Join(opts.DataDir, datadir.TmpDir),
	})
	defer d.runs.Close(context.Background())
	d.confined = d.openConfined()
	defer d.confined.Close()
	stopExport := d.startExport(ctx)
	defer stopExport()
	return d.serve(ctx)
}

// tokenValues lets the redactor hide our own tokens should one ever reach
// output (the data dir is hidden from sandboxes; this is a second line).
func (d *Daemon) tokenValues() []secrets.Value {
	var out []secrets.Value
	for _, f := range []struct{ file, name string }{{datadir.AgentToken, "GATEHOUSE_AGENT_TOKEN"}, {datadir.ControlToken, "GATEHOUSE_CONTROL_TOKEN"}} {
		if tok, err := token.ReadFile(filepath.Join(d.opts.DataDir, f.file)); err == nil {
			out = append(out, secrets.Value{Name: f.name, Value: tok})
		}
	}
	return append(out, agentTokenValues(d.opts.DataDir)...)
}

func (d *Daemon) liveSessions() []string {
	list, err := d.sessions.List(context.Background(), session.ListFilter{Status: session.Active, Limit: 1000})
	if err != nil {
		return nil
	}
	ids := make([]string, 0, len(list))
	for _, i := range list {
		ids = append(ids, i.ID)
	}
	return ids
}

func (d *Daemon) newServer(base context.Context) *http.Server {
	return &http.Server{
		Handler:           d.handler,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return base },
		ConnContext:       httpgate.ConnContext,
		ErrorLog:          slog.NewLogLogger(d.logger.Handler(), slog.LevelDebug),
	}
}

func (d *Daemon) port() int {
	if a, ok := d.addr.(*net.TCPAddr); ok {
		return a.Port
	}
	return 0
}

func (d *Daemon) buildHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok"))
	})
	hooks := hookserver.New(hookserver.Config{Runner: d.runner, Runs: d.runs, Sessions: d.sessions, Logger: d.logger,
		Redact: d.redactor.String, Redacted: filepath.Join(d.opts.DataDir, datadir.RedactedDir), AgentSession: d.usage.Alias})
	d.mcp = mcpserver.New(mcpserver.Config{
		Sessions: d.sessions, Runs: d.runs, Tokens: d.tokens, Runner: d.runner, Version: d.opts.Version, Logger: quietInfo(d.logger),
		Routes: hooks.Routes(),
	})
	d.exposures = d.openExposures()
	(&api.Server{
		Exposures: d.exposures,
		Sessions:  d.sessions, Audit: d.audit, Approvals: d.approvals, Kill: d.Kill, Logger: d.logger, Status: d.status,
		Policy: d.policy, Snapshots: d.snapshots, Tokens: &tokenStore{db: d.db, set: d.tokens, logins: d.logins}, Agents: d.agentsService(), Connect: d.connectInfo, Emit: d.Emit, Live: d.runs.Session, DefaultMode: d.opts.Mode,
		Cache: d.buildCache(), RunPath: d.runPath(), Workspaces: d.projects, Runs: d.confined, Export: d.export, Usage: d.usage.ForRun,
	}).Register(mux)
	mux.Handle("/mcp", d.mcp.Handler())
	mux.Handle("/mcp/", d.mcp.Handler())
	mux.Handle("/", uiHandler(d.opts.UI))
	port := strconv.Itoa(d.port())
	origins := append([]string{"http://127.0.0.1:" + port, "http://localhost:" + port, "http://[::1]:" + port}, d.opts.AllowedOrigins...)
	var publicHosts []string
	if d.opts.Public {
		if h, _, err := net.SplitHostPort(d.opts.Listen); err == nil {
			publicHosts = append(publicHosts, h)
		}
	}
	g := &httpgate.Config{
		Port:           d.port,
		PublicHosts:    publicHosts,
		AllowedOrigins: origins,
		Tokens:         d.tokens,
		Logins:         d.logins,
		Open:           isUIPath,
		QueryToken:     d.opts.QueryToken,
		Logger:         d.logger,
		Suspect:        d.exposures.suspects.Relay,
	}
	d.mux = mux
	return g.Wrap(mux)
}

// buildCache is the commands' build cache, nil when there is none.
func (d *Daemon) buildCache() *buildcache.Cache {
	if d.opts.RunEnv == nil {
		return nil
	}
	return d.opts.RunEnv.Cache
}

// runPath is the PATH commands are found on, "" for the system's.
func (d *Daemon) runPath() string {
	if d.opts.RunEnv == nil {
		return ""
	}
	return d.opts.RunEnv.Toolchains.PathString()
}

// connectInfo tells the Connect screen how agents reach this daemon.
func (d *Daemon) connectInfo() map[string]any {
	tok, _ := token.ReadFile(filepath.Join(d.opts.DataDir, datadir.AgentToken))
	return map[string]any{
		"mcp_url":        "http://" + d.addr.String() + "/mcp",
		"ui_url":         "http://" + d.addr.String() + "/",
		"agent_token":    tok,
		"bridge_command": bridgeCommand() + " --data " + d.opts.DataDir + " mcp",
		"data_dir":       d.opts.DataDir,
	}
}

// bridgeCommand is the gatehouse binary agents should start for the stdio
// bridge: its absolute path, since a bare "gatehouse" is not on PATH after
// `make run`. The headless binary beside a desktop build is preferred, as
// it starts without loading GTK.
func bridgeCommand() string {
	exe, err := os.Executable()
	if err != nil {
		return "gatehouse"
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	if cli := filepath.Join(filepath.Dir(exe), "gatehouse"); cli != exe {
		if st, err := os.Stat(cli); err == nil && st.Mode().IsRegular() {
			return cli
		}
	}
	return exe
}

// Kill is the kill switch: deny every pending approval, then stop every
// session (which cancels every call and sandboxed process tree).
func (d *Daemon) Kill(ctx context.Context, actor, reason string) int {
	d.approvals.DenyAll(ctx, "system:kill", session.KilledMessage)
	return d.sessions.Kill(ctx, actor, reason)
}

func (d *Daemon) emitCall(ctx context.Context, kind, actor, sess, call string, payload any) {
	if err := d.Record(ctx, kind, actor, sess, call, payload); err != nil {
		d.logger.Error("audit append failed", "kind", kind, "err", err)
	}
}

func (d *Daemon) status() map[string]any {
	backend := "none configured"
	if d.opts.Sandbox != nil {
		backend = d.opts.Sandbox.Name()
	}
	checkpoints := map[string]any{"ok": true}
	if problem, since := d.runner.CheckpointProblem(); problem != "" {
		checkpoints = map[string]any{"ok": false, "problem": problem, "since": since}
	}
	out := map[string]any{
		"checkpoints":       checkpoints,
		"sandbox":           backend,
		"pending_approvals": len(d.approvals.Pending()),
		"version":           d.opts.Version,
		"listen":            d.addr.String(),
		"workspaces":        d.projects.Roots(),
		"pid":               os.Getpid(),
		"exposures":         len(d.exposures.List()),
	}
	if d.opts.RunEnv != nil {
		// What commands find on PATH and see read-only: what `gatehouse
		// doctor` checks, rather than its own shell's PATH.
		out["toolchains"] = d.opts.RunEnv.Toolchains
	}
	return out
}

// Emit appends an audit event and waits for it to be durable. A failure is
// logged; callers that must not proceed without a record use Record.
func (d *Daemon) Emit(ctx context.Context, kind, actor, sess string, payload any) {
	if err := d.Record(ctx, kind, actor, sess, "", payload); err != nil {
		d.logger.Error("audit append failed", "kind", kind, "err", err)
	}
}

// Record appends an audit event and returns once it is committed.
func (d *Daemon) Record(ctx context.Context, kind, actor, sess, call string, payload any) error {
	return d.appendWith(ctx, d.audit.Append, kind, actor, sess, call, payload)
}

// RecordWritten appends an audit event and returns once it is in the
// database, its fsync coming with the next Record (audit.AppendWritten).
func (d *Daemon) RecordWritten(ctx context.Context, kind, actor, sess, call string, payload any) error {
	return d.appendWith(ctx, d.audit.AppendWritten, kind, actor, sess, call, payload)
}

// EmitWritten is RecordWritten for a session's event, its failure logged.
func (d *Daemon) EmitWritten(ctx context.Context, kind, actor, sess string, payload any) {
	if err := d.RecordWritten(ctx, kind, actor, sess, "", payload); err != nil {
		d.logger.Error("audit append failed", "kind", kind, "err", err)
	}
}

func (d *Daemon) appendWith(ctx context.Context, add func(context.Context, audit.Event) (audit.Event, error), kind, actor, sess, call string, payload any) error {
	e, err := d.event(kind, actor, sess, call, payload)
	if err != nil {
		return err
	}
	_, err = add(context.WithoutCancel(ctx), e)
	return err
}

// RecordAsync queues an audit event without waiting for the commit.
func (d *Daemon) RecordAsync(ctx context.Context, kind, actor, sess, call string, payload any) {
	e, err := d.event(kind, actor, sess, call, payload)
	if err != nil {
		d.logger.Error("audit event", "kind", kind, "err", err)
		return
	}
	done := d.audit.Queue(context.WithoutCancel(ctx), e)
	go func() {
		if res := <-done; res.Err != nil {
			d.logger.Error("audit append failed", "kind", kind, "err", res.Err)
		}
	}()
}

func (d *Daemon) event(kind, actor, sess, call string, payload any) (audit.Event, error) {
	e := audit.Event{Kind: kind, Actor: actor, Session: sess, CallID: call}
	if m, ok := payload.(map[string]any); ok {
		// Most payloads: written straight in canonical form, each string
		// redacted on the way, instead of marshalled, redacted as JSON and
		// parsed again by the store.
		opts := audit.PayloadOptions{Other: d.redactedJSON}
		if d.redactor != nil {
			opts.String = d.redactor.String
		}
		return audit.EventWithPayload(e, m, opts)
	}
	b, err := d.redactedJSON(payload)
	if err != nil {
		return audit.Event{}, err
	}
	e.Payload = b
	return e, nil
}

// redactedJSON marshals v; nothing secret reaches the audit log, whoever
// built the payload.
func (d *Daemon) redactedJSON(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode audit payload: %w", err)
	}
	if d.redactor != nil {
		rb, err := d.redactor.JSON(b)
		if err != nil {
			// Fail closed: a payload that could not be redacted is not
			// stored; the row says so instead.
			d.logger.Error("redact audit payload", "err", err)
			return []byte(fmt.Sprintf(`{"withheld":"the payload could not be redacted","bytes":%d}`, len(b))), nil
		}
		b = rb
	}
	return b, nil
}
