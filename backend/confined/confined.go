// Package confined is the daemon's side of whole-agent runs (`gatehouse
// run`). Each run is one session, opened before the agent starts (its
// workspace card, if any, answered first), with unix listeners of its
// own in the data dir: one for the agent's routes (MCP, hooks, exec) and
// two for its egress proxy (a stream to forward over, and one that takes
// the connections themselves, each with its process's name). Only the
// person's `gatehouse run`, outside the sandbox, reaches them: it
// forwards, or hands over, what the sandbox connects to, so nothing of
// the data dir is inside.
//
// A request on a run's agent listener is the run, whichever client inside
// sent it (httpgate.RunConnContext): the agent's MCP client, its hooks,
// `gatehouse exec`, a server it started. Its proxy judges connections as
// a command's are (network rules, grants, cards), the agent's model API
// let through, and audits each with the process that made it.
package confined

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/call"
	"github.com/gatehouse-dev/gatehouse/backend/db"
	"github.com/gatehouse-dev/gatehouse/backend/egress"
	"github.com/gatehouse-dev/gatehouse/backend/httpgate"
	"github.com/gatehouse-dev/gatehouse/backend/randid"
	"github.com/gatehouse-dev/gatehouse/backend/sentence"
	"github.com/gatehouse-dev/gatehouse/backend/session"
	"github.com/gatehouse-dev/gatehouse/backend/snapshot"
	"github.com/gatehouse-dev/gatehouse/backend/token"
	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// Sessions opens and finds a run's session; *session.Runs is one.
type Sessions interface {
	Attach(ctx context.Context, key session.RunKey, s session.RunStart) (*session.State, func(gone bool), error)
	End(ctx context.Context, key session.RunKey, reason string)
}

// Network decides and records a run's connections; *call.Runner is one.
type Network interface {
	ConfinedNetwork(o call.NetworkOrigin) interface {
		egress.Decider
		egress.Recorder
	}
}

// Proxy opens a proxy run; *egress.Proxy is one.
type Proxy interface {
	Open(ctx context.Context, info egress.RunInfo) *egress.Run
}

// Checkpoints records the workspace before and after a run, so the
// agent's own writes (which no hook saw) can be rolled back as one call;
// *snapshot.Store is one.
type Checkpoints interface {
	Checkpoint(ctx context.Context, req snapshot.Request) (snapshot.Checkpoint, error)
}

// Emitter records an audit event.
type Emitter func(ctx context.Context, kind, actor, session string, payload any)

// Deps wire the runs to the daemon.
type Deps struct {
	Sessions Sessions
	Tokens   *token.Set
	Network  Network
	// Proxy is nil when the daemon has no egress proxy: a run then gets
	// no network at all.
	Proxy Proxy
	// Handler serves a run's agent listener: the daemon's own, behind its
	// gate, which admits the run's connections as the run.
	Handler http.Handler
	// Checkpoints is nil when checkpoints are off.
	Checkpoints Checkpoints
	// Backend is the daemon's sandbox backend for commands (its name): a
	// run asked for with the auto backend is confined the way it chose.
	Backend string
	// Dir holds each run's listeners (in the data dir, 0700).
	Dir string
	// Hidden are host paths no run sees (the data dir).
	Hidden []string
	// Redacted, if set, is the directory of a run's redacted copies
	// (which `gatehouse run` shows inside): made while the run opens,
	// removed when it ends.
	Redacted func(run string) string
	// Emit returns once the event is durable. Written returns once it is
	// in the database (it survives the daemon's death), its fsync coming
	// with the next Emit's, as a call's start is recorded. Queue does not
	// wait: its event is committed with the next Emit or Written, or
	// alone a few milliseconds later. Written and Queue are Emit when nil.
	Emit, Written, Queue Emitter
	Logger               *slog.Logger
}

// Request asks for a run.
type Request struct {
	// Agent is the profile's name (claude, codex, gemini), "" for a plain
	// command.
	Agent string   `json:"agent"`
	Argv  []string `json:"argv"`
	// Cwd is where the run starts: its project is the workspace.
	Cwd string `json:"cwd"`
	// Domains need no card (the profile's model API).
	Domains []string `json:"domains"`
	// Backend is the configured sandbox backend (auto, bwrap, landlock,
	// …); see Started.Backend.
	Backend string `json:"backend,omitempty"`
	// Dirs are more directories (absolute) the agent's own flags name to
	// work in (claude --add-dir), DirsNamedBy says so on their cards
	// ("named by claude's own flags"): workspaces of the run too where
	// the person lets them be.
	Dirs        []string `json:"dirs,omitempty"`
	DirsNamedBy string   `json:"dirs_named_by,omitempty"`
	// Published are the ports `gatehouse run --publish` forwards from
	// this machine's loopback to the run's servers: in the audit, since a
	// server of the agent's then answers outside its sandbox.
	Published []int `json:"published,omitempty"`
}

// Started is a run as `gatehouse run` needs it.
type Started struct {
	ID         string   `json:"id"`
	Session    string   `json:"session"`
	Workspaces []string `json:"workspaces"`
	// GitDirs are the git dirs beside the workspaces (a linked worktree's
	// common dir, a submodule's repository) that the run's checkpoints
	// hold: the run shows them writable, and no others.
	GitDirs []string `json:"git_dirs,omitempty"`
	// AgentSocket and ProxySocket are the run's listeners on the host.
	AgentSocket string `json:"agent_socket"`
	ProxySocket string `json:"proxy_socket"`
	// HandSocket, a unixpacket listener, takes the proxy's connections
	// themselves, each with its process's name (egress.Run.ServeHanded),
	// so no forwarder copies their bytes; ProxySocket serves a `gatehouse
	// run` that does not know it.
	HandSocket string `json:"hand_socket,omitempty"`
	// Backend confines the run: landlock, or bwrap (whole-agent mode has
	// no other). With the auto backend it is the daemon's choice for
	// commands, so a machine where bubblewrap cannot make namespaces runs
	// its agents on Landlock as it does its commands.
	Backend string `json:"backend,omitempty"`
	// Tmp is the session's temporary directory, which the run shows as
	// its /tmp (its TMPDIR under Landlock) and its commands' sandboxes as
	// theirs: what the agent saves there, its commands find; "" gives the
	// run one of its own.
	Tmp string `json:"tmp,omitempty"`
	// HostPorts are the ports of this machine's loopback the run reaches
	// through its proxy (the config's host_ports): `gatehouse run` listens
	// on them inside and hands each connection over HandSocket, labelled
	// "host=PORT process=NAME".
	HostPorts []int `json:"host_ports,omitempty"`
}

// Runs are the live confined runs.
type Runs struct {
	deps Deps
	mu   sync.Mutex
	live map[string]*run
	// spare are the next run's listeners, made ahead (takeListeners).
	spare  *listeners
	closed bool
}

type run struct {
	id      string
	st      *session.State
	release func(gone bool)
	dropTok func()
	servers []*http.Server
	lns     []net.Listener
	proxy   *egress.Run
	dir     string
	once    sync.Once
	// began: the agent was let start (Start answered), so its end has a
	// checkpoint to take.
	began bool
	// postErr is why the checkpoint after the run failed, set by release.
	postErr error
	// gitDirs are the common git dirs of a project that is a linked
	// worktree, which the agent writes in place: its checkpoints hold
	// them beside the project, the same before and after.
	gitDirs []string
}

// New returns the registry.
func New(d Deps) *Runs {
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	if d.Written == nil {
		d.Written = d.Emit
	}
	if d.Queue == nil {
		d.Queue = d.Emit
	}
	return &Runs{deps: d, live: map[string]*run{}}
}

// maxDirs bounds a run's other directories (each may ask the person).
const maxDirs = 16

// ErrNoRun: the run is not (or no longer) live.
var ErrNoRun = errors.New("no such confined run; it has ended")

// Start opens a run: its session (after the workspace card, if the
// project needs one) and its two listeners.
func (g *Runs) Start(ctx context.Context, req Request) (Started, error) {
	if len(req.Argv) == 0 {
		return Started{}, errors.New("name the command to run")
	}
	if !filepath.IsAbs(req.Cwd) {
		return Started{}, errors.New("the run's working directory must be an absolute path")
	}
	if len(req.Dirs) > maxDirs {
		return Started{}, fmt.Errorf("a run works in at most %d directories besides its project", maxDirs)
	}
	for _, d := range req.Dirs {
		if !filepath.IsAbs(d) {
			return Started{}, fmt.Errorf("the run's other directory %q must be an absolute path", d)
		}
	}
	id := randid.New("", 8)
	tok, err := token.New()
	if err != nil {
		return Started{}, err
	}
	name := req.Agent
	if name == "" {
		name = filepath.Base(req.Argv[0])
	}
	tokID := "run-" + id
	r := &run{id: id}
	r.dropTok = g.deps.Tokens.Hold(token.Entry{ID: tokID, Kind: token.Agent, Name: name, Hash: token.Hash(tok)})
	backend := g.backend(req.Backend)
	st, release, err := g.deps.Sessions.Attach(ctx, session.ConfinedRun(id), session.RunStart{
		Token: tokID, Client: name, ClientName: name, Transport: "confined", Cwd: req.Cwd, Confined: true, Backend: backend,
		Dirs: req.Dirs, DirsNamedBy: req.DirsNamedBy,
	})
	if err != nil {
		r.dropTok()
		var se *db.StorageError
		switch {
		case errors.As(err, &se):
			return Started{}, fmt.Errorf("%w (nothing was started)", se)
		case errors.Is(err, session.ErrKilled):
			// Said to the person at their terminal, not to a model.
			return Started{}, sentence.New("the kill switch is on, so nothing was started; lift it with `gatehouse resume` (or in the app) first", err)
		}
		return Started{}, err
	}
	r.st, r.release = st, release
	// The checkpoint waits for the disk while the listeners are made;
	// its row is committed with run.started, before the agent starts.
	pre := make(chan struct{})
	var preErr error
	home, _ := os.UserHomeDir()
	r.gitDirs = sandbox.LinkedGitDirs(st.Workspaces, g.deps.Hidden, home)
	go func() {
		defer close(pre)
		preErr = g.checkpoint(ctx, r, snapshot.Pre, g.deps.Queue)
	}()
	if g.deps.Redacted != nil {
		// `gatehouse run` makes it too, and says why when it cannot.
		_ = os.MkdirAll(g.deps.Redacted(id), 0o700)
	}
	err = g.listen(r, req, tok, name)
	<-pre
	if err == nil && preErr != nil {
		// As a command that would change files is refused without one:
		// what the agent did could not be undone.
		err = fmt.Errorf("your project could not be checkpointed before the run, so nothing was started: %s", snapshot.Problem(preErr))
	}
	if err != nil {
		g.close(r, "the run could not start: "+err.Error())
		return Started{}, err
	}
	r.began = true
	g.mu.Lock()
	g.live[id] = r
	g.mu.Unlock()
	// A session Gatehouse ends (the kill switch) closes the run's
	// listeners at once; `gatehouse run` sees its wait end and stops the
	// sandbox.
	context.AfterFunc(st.Live.Context(), func() { g.close(r, "") })
	// Before the agent starts, as a call's row is before it runs; the
	// disk's wait comes with the run's end.
	g.deps.Written(ctx, "run.started", st.Live.Actor(), st.Live.ID(), map[string]any{
		"run": id, "agent": req.Agent, "argv": req.Argv, "cwd": req.Cwd, "workspaces": st.Workspaces, "backend": backend,
		"published": req.Published,
	})
	tmp, err := st.MakeTmp()
	if err != nil {
		g.deps.Logger.Warn("make the run's temporary directory; it gets one of its own", "err", err)
	}
	return Started{ID: id, Session: st.Live.ID(), Workspaces: st.Workspaces, GitDirs: r.gitDirs,
		AgentSocket: filepath.Join(r.dir, "agent.sock"), ProxySocket: filepath.Join(r.dir, "proxy.sock"),
		HandSocket: filepath.Join(r.dir, "hand.sock"), Backend: backend, Tmp: tmp, HostPorts: r.hostPorts()}, nil
}

// backend is what confines a run asked for with the configured backend
// name: Landlock or the container when it names one or, with auto, when
// the daemon chose it for commands; bubblewrap otherwise.
func (g *Runs) backend(configured string) string {
	if configured == "" || configured == "auto" {
		configured = g.deps.Backend
	}
	switch configured {
	case "landlock", "container":
		return configured
	}
	return "bwrap"
}

// listen serves the run's agent and proxy listeners.
func (g *Runs) listen(r *run, req Request, tok, name string) error {
	l, err := g.takeListeners()
	if err != nil {
		return err
	}
	r.dir, r.lns = l.dir, l.all()
	agentLn, proxyLn, handLn := l.agent, l.proxy, l.hand
	srv := &http.Server{
		Handler:           g.deps.Handler,
		ReadHeaderTimeout: 30 * time.Second,
		ConnContext: httpgate.RunConnContext(httpgate.Principal{
			TokenID: "run-" + r.id, Name: name, Run: r.id,
		}, tok),
	}
	r.servers = append(r.servers, srv)
	go func() { _ = srv.Serve(agentLn) }()
	if g.deps.Proxy == nil {
		// No egress proxy: every connection is refused by closing it (a
		// handed one with the message that carries it).
		for _, ln := range []net.Listener{proxyLn, handLn} {
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					c.Close()
				}
			}()
		}
		return nil
	}
	domains := map[string]bool{}
	for _, d := range req.Domains {
		domains[d] = true
	}
	bin := req.Argv[0]
	nd := g.deps.Network.ConfinedNetwork(call.NetworkOrigin{
		State: r.st, Binary: bin, Cwd: req.Cwd, Via: call.ViaConfined,
		Preapproved: func(d string) bool { return domains[d] },
	})
	r.proxy = g.deps.Proxy.Open(r.st.Live.Context(), egress.RunInfo{
		Session: r.st.Live.ID(), Argv: req.Argv, Decider: nd, Recorder: nd, Labelled: true,
	})
	go r.proxy.Serve(proxyLn)
	go r.proxy.ServeHanded(handLn)
	return nil
}

// Ended is how a run's session ended.
type Ended struct {
	Status session.Status `json:"status"`
	Reason string         `json:"reason"`
}

// Wait returns once the run's session has ended, with how.
func (g *Runs) Wait(ctx context.Context, id string) (Ended, error) {
	g.mu.Lock()
	r, ok := g.live[id]
	g.mu.Unlock()
	if !ok {
		return Ended{}, ErrNoRun
	}
	select {
	case <-ctx.Done():
		return Ended{}, ctx.Err()
	case <-r.st.Live.Context().Done():
		info := r.st.Live.Snapshot()
		return Ended{Status: info.Status, Reason: info.EndReason}, nil
	}
}

// Closed is what the person is told when a run ends.
type Closed struct {
	Ended bool `json:"ended"`
	// Warning says what went wrong at the end (the checkpoint after the
	// run failed), "" when nothing did.
	Warning string `json:"warning,omitempty"`
}

// End ends a run whose agent exited with status exit.
func (g *Runs) End(ctx context.Context, id string, exit int) (Closed, error) {
	reason := fmt.Sprintf("the confined agent exited (status %d)", exit)
	if exit < 0 {
		reason = "`gatehouse run` went away"
	}
	return g.end(ctx, id, exit, reason, nil)
}

// NotStarted ends a run whose agent never started (`gatehouse run` could
// not make its sandbox), saying why: the session's end reason then says
// so, not that the agent exited.
func (g *Runs) NotStarted(ctx context.Context, id, why string) (Closed, error) {
	if len(why) > maxWhy {
		why = why[:maxWhy] + "…"
	}
	return g.end(ctx, id, -1, "the run did not start: "+why, map[string]any{"not_started": why})
}

// maxWhy bounds the sentence a run that did not start leaves.
const maxWhy = 512

// end ends run id once, with reason for its session and more for its
// run.ended row.
func (g *Runs) end(ctx context.Context, id string, exit int, reason string, more map[string]any) (Closed, error) {
	g.mu.Lock()
	r, ok := g.live[id]
	g.mu.Unlock()
	if !ok {
		return Closed{}, ErrNoRun
	}
	r.once.Do(func() {
		// Committed with the checkpoint after the run, when there is one.
		emit := g.deps.Queue
		if g.deps.Checkpoints == nil {
			emit = g.deps.Emit
		}
		row := map[string]any{"run": id, "exit": exit}
		maps.Copy(row, more)
		emit(ctx, "run.ended", r.st.Live.Actor(), r.st.Live.ID(), row)
		g.release(r, reason)
	})
	c := Closed{Ended: true}
	if r.postErr != nil {
		c.Warning = "the checkpoint after the run failed (" + snapshot.Problem(r.postErr) + "), so what the agent changed cannot be undone from Gatehouse"
	}
	return c, nil
}

// close releases the run once.
func (g *Runs) close(r *run, reason string) {
	r.once.Do(func() { g.release(r, reason) })
}

// release closes what the run holds: its listeners, its token, its
// session (reason "" when the session already ended). Called once, under
// r.once.
func (g *Runs) release(r *run, reason string) {
	g.mu.Lock()
	delete(g.live, r.id)
	g.mu.Unlock()
	for _, s := range r.servers {
		_ = s.Close()
	}
	for _, ln := range r.lns {
		// Its file goes with the run's directory, below.
		if ul, ok := ln.(*net.UnixListener); ok {
			ul.SetUnlinkOnClose(false)
		}
		_ = ln.Close()
	}
	if r.proxy != nil {
		r.proxy.Close()
	}
	r.dropTok()
	if r.began {
		r.postErr = g.checkpoint(context.Background(), r, snapshot.Post, g.deps.Emit)
	}
	if r.release != nil {
		// The run's client has gone: the session ends after its grace
		// unless it already did.
		r.release(true)
	}
	if reason != "" && r.st != nil {
		g.deps.Sessions.End(context.Background(), session.ConfinedRun(r.id), reason)
	}
	// Nothing waits for the files to go: no one reaches a closed
	// listener, and the next run has directories of its own.
	go func() {
		if r.dir != "" {
			_ = os.RemoveAll(r.dir)
		}
		if g.deps.Redacted != nil {
			_ = os.RemoveAll(g.deps.Redacted(r.id))
		}
	}()
}

// Close ends every live run (the daemon is stopping).
func (g *Runs) Close() {
	g.mu.Lock()
	g.closed = true
	if g.spare != nil {
		g.spare.close()
		g.spare = nil
	}
	rs := make([]*run, 0, len(g.live))
	for _, r := range g.live {
		rs = append(rs, r)
	}
	g.mu.Unlock()
	for _, r := range rs {
		g.close(r, "Gatehouse stopped")
	}
}

// CallPrefix starts the call id a run's own checkpoints go under
// ("run-ID"): what the agent changed itself, outside any call, is undone
// as that call.
const CallPrefix = "run-"

// checkpoint records the run's workspace under the call id "run-ID", so
// `gatehouse rollback SESSION --call run-ID` undoes what the run did that
// no call of its own recorded. emit records how it went; the error says
// why it could not (nil with checkpoints off).
func (g *Runs) checkpoint(ctx context.Context, r *run, phase snapshot.Phase, emit Emitter) error {
	if g.deps.Checkpoints == nil {
		return nil
	}
	call := CallPrefix + r.id
	cp, err := g.deps.Checkpoints.Checkpoint(ctx, snapshot.Request{Session: r.st.Live.ID(), CallID: call, Phase: phase, Roots: slices.Concat(r.st.Workspaces, r.gitDirs)})
	if err != nil {
		g.deps.Logger.Warn("checkpoint a confined run", "run", r.id, "phase", phase, "err", err)
		emit(ctx, "checkpoint.failed", "system", r.st.Live.ID(), map[string]any{"call": call, "phase": phase, "error": err.Error()})
		return err
	}
	emit(ctx, "checkpoint.created", "system", r.st.Live.ID(), map[string]any{
		"call": call, "checkpoint": cp.ID, "phase": cp.Phase, "files": cp.Stats.Files,
	})
	return nil
}

// hostPorts are the ports the run's proxy connects to the machine's
// loopback; none without a proxy.
func (r *run) hostPorts() []int {
	if r.proxy == nil {
		return nil
	}
	return r.proxy.HostPorts()
}
