package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/workspace"
)

// RunStart describes the session to open when a run is first seen.
type RunStart struct {
	// Token is the id of the agent token the request came with: a run is
	// only ever used with the token it started with.
	Token                             string
	Client, ClientName, ClientVersion string
	Transport                         string
	// NoSessionGrants: the run cannot be told apart from the client's
	// other runs, so "allow for this session" is not offered.
	NoSessionGrants bool
	// Elicit asks the person through the client, if it can.
	Elicit func(ctx context.Context, question string) (string, error)
	// Cwd is the agent's working directory, when the transport knows it
	// (a hook's event, the stdio bridge): its project is the session's
	// workspace.
	Cwd string
	// Confined: the run is a whole agent in a sandbox (`gatehouse run`).
	Confined bool
	// Backend confines a Confined run (landlock, bwrap, container).
	Backend string
	// Dirs are more directories the agent works in besides its project
	// (named by its own flags, DirsNamedBy: claude --add-dir): each is a
	// workspace of the run too, served by a root or after its own card.
	Dirs        []string
	DirsNamedBy string
}

// Workspaces decide where a new run works. *projects.Projects is one.
type Workspaces interface {
	// Resolve is the workspace a run in cwd gets without asking, or the
	// project the person must be asked about (ask).
	Resolve(cwd string) (ws []string, ask string, err error)
	// Ask files the workspace card for q.Project under the run's
	// session and waits; the workspace is the project once allowed.
	Ask(ctx context.Context, q WorkspaceAsk) ([]string, error)
}

// WorkspaceAsk is a new run asking to work in a project no root holds.
type WorkspaceAsk struct {
	// Session is the run's new session, which the card is filed under.
	Session, Actor string
	Cwd, Project   string
	// NamedBy is what named Project besides where the agent started (its
	// own flags), "" for the project it started in.
	NamedBy string
	// NoSessionScope: the run cannot be told apart from its client's
	// other runs.
	NoSessionScope bool
}

// RunsConfig wires the registry to the daemon.
type RunsConfig struct {
	Sessions *Manager
	// Workspaces say where each run works (workspaces follow the agent).
	Workspaces Workspaces
	// OnWorkspace, if set, learns each workspace a run gets before its
	// first call (its policy file, its build cache); an error refuses
	// the run.
	OnWorkspace func(ws []string) error
	Mode        string
	Limits      Limits
	Logger      *slog.Logger
	// TmpDir holds each session's temporary directory, named by its id
	// (State.MakeTmp); "" gives each command a /tmp of its own.
	TmpDir string
	// IdleAfter marks a session idle, releasing its warm sandbox, after
	// this long without a call (default 2 minutes).
	IdleAfter time.Duration
	// EndAfter ends a session with no client attached after this long
	// without a call (default 30 minutes).
	EndAfter time.Duration
	// GoneGrace is how long a run whose last client connection closed is
	// kept for the client to come back (a reconnect) before it ends
	// (default 5 seconds).
	GoneGrace time.Duration
}

// ErrOtherToken refuses a run named with a token it did not start with.
var ErrOtherToken = errors.New("this agent run belongs to another agent token; use the token it started with")

// Runs holds the live agent runs and gives each one session, whichever
// way its calls arrive (see the package doc).
type Runs struct {
	cfg  RunsConfig
	mu   sync.Mutex
	runs map[RunKey]*run
	// starting are the runs being started: the first call starts one
	// (perhaps waiting on the person's workspace card) without holding
	// mu, and the others wait for it.
	starting map[RunKey]*startingRun
	stop     chan struct{}
	done     chan struct{}
	once     sync.Once
	// open counts the runs whose sandbox is not yet released, so Close
	// waits for the releases a session's end started (a container's
	// removal), not only for its own.
	open sync.WaitGroup
}

type startingRun struct {
	done chan struct{}
	err  error
	// waiters are the callers sharing this start (and its card), under mu.
	waiters int
}

type run struct {
	key   RunKey
	token string
	st    *State
	refs  int       // attachments held: an MCP session, a bridge's presence
	gone  time.Time // when the last attachment left because its client went
	// released closes st once, whoever ends the run first.
	released sync.Once
}

// NewRuns starts a registry of runs and its reaper.
func NewRuns(cfg RunsConfig) *Runs {
	if cfg.IdleAfter <= 0 {
		cfg.IdleAfter = 2 * time.Minute
	}
	if cfg.EndAfter <= 0 {
		cfg.EndAfter = 30 * time.Minute
	}
	if cfg.GoneGrace <= 0 {
		cfg.GoneGrace = 5 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	g := &Runs{cfg: cfg, runs: map[RunKey]*run{}, starting: map[RunKey]*startingRun{}, stop: make(chan struct{}), done: make(chan struct{})}
	go g.reap()
	return g
}

// Use returns the run's state for one call (a hook, a stateless request),
// opening its session when the run is new or its session has ended.
func (g *Runs) Use(ctx context.Context, key RunKey, s RunStart) (*State, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, err := g.lookupLocked(ctx, key, s)
	if err != nil {
		return nil, err
	}
	return r.st, nil
}

// Attach is Use for a connection that lasts (an MCP session, a bridge's
// presence stream): the run is held until release, whose argument says
// whether the client went away (the run then ends after a short grace,
// unless another connection holds it) or only this connection ended.
func (g *Runs) Attach(ctx context.Context, key RunKey, s RunStart) (*State, func(gone bool), error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, err := g.lookupLocked(ctx, key, s)
	if err != nil {
		return nil, nil, err
	}
	r.refs++
	r.gone = time.Time{}
	var once sync.Once
	release := func(gone bool) {
		once.Do(func() {
			g.mu.Lock()
			defer g.mu.Unlock()
			r.refs--
			if r.refs == 0 && gone {
				r.gone = time.Now()
			}
		})
	}
	return r.st, release, nil
}

// lookupLocked finds or starts the run; it is called with mu held and
// returns with it held. A new run starts with mu released, since its
// workspace may wait for the person, once however many calls race.
func (g *Runs) lookupLocked(ctx context.Context, key RunKey, s RunStart) (*run, error) {
	for {
		if r, ok := g.runs[key]; ok && r.st.Live.Context().Err() == nil {
			if r.token != s.Token {
				// Another token naming this run is not its agent.
				return nil, ErrOtherToken
			}
			if info := r.st.Live.Snapshot(); info.ClientName == "" && s.ClientName != "" {
				// The run began with a hook or a presence stream, which know no
				// MCP client info.
				g.cfg.Sessions.SetClientInfo(ctx, info.ID, s.ClientName, s.ClientVersion)
			}
			// One run, several routes: its bridge and its hooks.
			g.cfg.Sessions.AddTransport(ctx, r.st.Live.ID(), s.Transport)
			return r, nil
		}
		if w, ok := g.starting[key]; ok {
			w.waiters++
			g.mu.Unlock()
			select {
			case <-w.done:
			case <-ctx.Done():
			}
			g.mu.Lock()
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if w.err != nil {
				return nil, w.err
			}
			continue
		}
		w := &startingRun{done: make(chan struct{})}
		g.starting[key] = w
		g.mu.Unlock()
		r, err := g.start(ctx, key, s)
		g.mu.Lock()
		delete(g.starting, key)
		w.err = err
		close(w.done)
		if err != nil {
			return nil, err
		}
		g.runs[key] = r
		g.open.Add(1)
		// A session Gatehouse ends (kill switch, budget) releases its sandbox
		// at once, not at the next reap.
		context.AfterFunc(r.st.Live.Context(), func() { g.drop(r) })
		return r, nil
	}
}

// start opens a new run's session in its workspace: the project the
// agent works in, at once when a root holds it, else after the person's
// workspace card (filed under the new session, which a refusal ends).
func (g *Runs) start(ctx context.Context, key RunKey, s RunStart) (*run, error) {
	ws, ask, err := g.cfg.Workspaces.Resolve(s.Cwd)
	if err != nil {
		return nil, err
	}
	live, err := g.cfg.Sessions.Start(ctx, StartRequest{
		Client: s.Client, ClientName: s.ClientName, ClientVersion: s.ClientVersion, Transport: s.Transport,
		Workspaces: ws, Mode: g.cfg.Mode, Run: runLabel(key), Confined: s.Confined,
	})
	if err != nil {
		return nil, err
	}
	if ask != "" {
		ws, err = g.cfg.Workspaces.Ask(ctx, WorkspaceAsk{Session: live.ID(), Actor: live.Actor(), Cwd: s.Cwd, Project: ask, NoSessionScope: s.NoSessionGrants})
		if err != nil {
			g.cfg.Sessions.End(context.WithoutCancel(ctx), live.ID(), "no workspace: "+err.Error())
			return nil, err
		}
		g.cfg.Sessions.SetWorkspaces(ctx, live.ID(), ws)
	}
	if more := g.moreWorkspaces(ctx, live, ws, s); len(more) > len(ws) {
		ws = more
		g.cfg.Sessions.SetWorkspaces(ctx, live.ID(), ws)
	}
	if g.cfg.OnWorkspace != nil {
		if err := g.cfg.OnWorkspace(ws); err != nil {
			g.cfg.Sessions.End(context.WithoutCancel(ctx), live.ID(), "workspace policy unreadable")
			return nil, err
		}
	}
	roots, err := workspace.New(ws...)
	if err != nil {
		g.cfg.Sessions.End(context.WithoutCancel(ctx), live.ID(), "workspace unavailable")
		return nil, fmt.Errorf("open the workspace: %w", err)
	}
	st := NewState(live, ws, roots, g.cfg.Limits)
	st.NoSessionGrants = s.NoSessionGrants
	st.Elicit = s.Elicit
	st.Backend = s.Backend
	id := live.ID()
	if g.cfg.TmpDir != "" {
		st.Tmp = filepath.Join(g.cfg.TmpDir, id)
	}
	st.OnWake(func() { g.cfg.Sessions.SetIdle(context.Background(), id, false) })
	return &run{key: key, token: s.Token, st: st}, nil
}

// moreWorkspaces is ws with the projects of the run's other directories
// (s.Dirs) that the person lets it work in. One that is refused, cannot
// be a workspace, or holds one of ws is left out: the run starts
// without it, and `gatehouse run` says which it does not show.
func (g *Runs) moreWorkspaces(ctx context.Context, live *Live, ws []string, s RunStart) []string {
	for _, d := range s.Dirs {
		if workspace.InsideAny(d, ws) {
			continue
		}
		more, ask, err := g.cfg.Workspaces.Resolve(d)
		if err == nil && ask != "" {
			more, err = g.cfg.Workspaces.Ask(ctx, WorkspaceAsk{Session: live.ID(), Actor: live.Actor(), Cwd: d, Project: ask, NamedBy: s.DirsNamedBy, NoSessionScope: s.NoSessionGrants})
		}
		if err != nil {
			g.cfg.Logger.Info("a run's other directory is not one of its workspaces", "dir", d, "err", err)
			continue
		}
		for _, m := range more {
			if !slices.Contains(ws, m) && !slices.ContainsFunc(ws, func(w string) bool { return workspace.InsideAny(w, []string{m}) }) {
				ws = append(slices.Clip(ws), m)
			}
		}
	}
	return ws
}

// runLabel is the run as sessions record it; transports that are their own
// run need no label.
func runLabel(k RunKey) string {
	switch k.Agent {
	case "mcp", "stateless":
		return ""
	}
	return k.String()
}

// End ends the run's session now (the agent said the run is over).
func (g *Runs) End(ctx context.Context, key RunKey, reason string) {
	g.mu.Lock()
	r, ok := g.runs[key]
	g.mu.Unlock()
	if ok {
		g.cfg.Sessions.End(ctx, r.st.Live.ID(), reason)
	}
}

// Find is the live state of a run, if any.
func (g *Runs) Find(key RunKey) (*State, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, ok := g.runs[key]
	if !ok || r.st.Live.Context().Err() != nil {
		return nil, false
	}
	return r.st, true
}

// Session finds the live state of a Gatehouse session by its id.
func (g *Runs) Session(id string) (*State, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, r := range g.runs {
		if r.st.Live.ID() == id && r.st.Live.Context().Err() == nil {
			return r.st, true
		}
	}
	return nil, false
}
