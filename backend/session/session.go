package session

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/db"
)

// Status of a session.
type Status string

const (
	Active Status = "active"
	Ended  Status = "ended"
	Killed Status = "killed"
)

// KilledMessage is what an agent is told when the kill switch stops its
// call or its pending approval. It says to wait: a model that retries or
// works around a refusal is what the switch exists to stop.
const KilledMessage = "the person stopped all agents; wait, do not retry"

var (
	// ErrKilled refuses work after the kill switch, until resume.
	ErrKilled = errors.New(KilledMessage + ": Gatehouse refuses every call until they resume it")
	// ErrPaused ends a call that gave up while the person had paused
	// every agent (its own context ended first).
	ErrPaused = errors.New("the person paused all agents; wait, do not retry: calls wait until they resume")
	// ErrNotActive refuses work on an ended or unknown session.
	ErrNotActive = errors.New("this session has ended; reconnect to start a new one")
	// ErrNotFound is an unknown session id.
	ErrNotFound = errors.New("no such session")
)

// Info is one session as the API shows it.
type Info struct {
	ID            string     `json:"id"`
	Client        string     `json:"client"`
	ClientName    string     `json:"client_name"`
	ClientVersion string     `json:"client_version"`
	Transport     string     `json:"transport"`
	Workspaces    []string   `json:"workspaces"`
	Mode          string     `json:"mode"`
	StartedAt     time.Time  `json:"started_at"`
	EndedAt       *time.Time `json:"ended_at,omitempty"`
	Status        Status     `json:"status"`
	EndReason     string     `json:"end_reason,omitempty"`
	// Run is the agent run the session belongs to ("claude:<id>"): the
	// agent's MCP bridge and its hooks share it.
	Run string `json:"run,omitempty"`
	// Goal is what the person asked the agent to do (their prompt).
	Goal string `json:"goal,omitempty"`
	// Idle: live, but its client has not been heard from for a while; its
	// warm sandbox is released until the next call.
	Idle bool `json:"idle,omitempty"`
	// Confined: the agent process itself, and all it started, ran in a
	// sandbox for its whole life (`gatehouse run`).
	Confined bool `json:"confined"`
	Counters
}

// Counters are per-session totals. Outcomes counts each ended call once,
// by how it ended, so its fields add up to Calls less the calls still
// running (or cleared and never run). Asked is another dimension: the
// calls that waited for the person, each also counted by its outcome.
// Allowed (the policy let it run without asking), Denied (the person or
// policy refused it or its changes) and Errors (it failed, was refused or
// stopped) predate Outcomes and are kept for the API's readers.
type Counters struct {
	Calls       int64 `json:"calls"`
	Allowed     int64 `json:"allowed"`
	Asked       int64 `json:"asked"`
	Denied      int64 `json:"denied"`
	Errors      int64 `json:"errors"`
	OutputBytes int64 `json:"output_bytes"`
	CPUMillis   int64 `json:"cpu_ms"`
	Outcomes    Tally `json:"outcomes"`
}

func (c *Counters) add(d Counters) {
	c.Calls += d.Calls
	c.Allowed += d.Allowed
	c.Asked += d.Asked
	c.Denied += d.Denied
	c.Errors += d.Errors
	c.OutputBytes += d.OutputBytes
	c.CPUMillis += d.CPUMillis
	c.Outcomes.add(d.Outcomes)
}

// Emitter records an audit event; the daemon wires it to the audit store.
type Emitter func(ctx context.Context, kind, actor, session string, payload any)

// Live is an active session. Its Context is cancelled when the session ends
// or is killed; every call, goroutine and child process of the session
// derives from it.
type Live struct {
	mu     sync.Mutex
	info   Info
	ctx    context.Context
	cancel context.CancelCauseFunc
}

// Context is cancelled (with ErrKilled or ErrNotActive as cause) when the
// session stops.
func (l *Live) Context() context.Context { return l.ctx }

// ID is the session id.
func (l *Live) ID() string { return l.info.ID }

// Snapshot returns a copy of the session's info.
func (l *Live) Snapshot() Info {
	l.mu.Lock()
	defer l.mu.Unlock()
	i := l.info
	i.Workspaces = append([]string(nil), i.Workspaces...)
	return i
}

// StartRequest describes a new session.
type StartRequest struct {
	Client        string
	ClientName    string
	ClientVersion string
	Transport     string
	Workspaces    []string
	Mode          string
	Run           string
	// Confined: a whole-agent run (`gatehouse run`).
	Confined bool
}

// Manager owns the live sessions and the switches.
type Manager struct {
	db     *sql.DB
	emit   Emitter
	logger *slog.Logger
	root   context.Context

	mu      sync.Mutex
	live    map[string]*Live
	paused  bool
	killed  bool
	resumed chan struct{} // closed and replaced on every resume
	waiting int           // calls held in Admit by the pause
}

// NewManager returns a manager whose sessions all derive from root, so
// daemon shutdown cancels every session. emit must commit durably: a
// session's row reaches the disk with its start and end events
// (execBeforeEvent).
func NewManager(root context.Context, db *sql.DB, emit Emitter, logger *slog.Logger) *Manager {
	return &Manager{db: db, emit: emit, logger: logger, root: root, live: map[string]*Live{}, resumed: make(chan struct{})}
}

// Recover closes sessions a previous daemon left active (it died with them).
func (m *Manager) Recover(ctx context.Context) error {
	rows, err := m.db.QueryContext(ctx, `SELECT id FROM sessions WHERE status = 'active'`)
	if err != nil {
		return fmt.Errorf("find stale sessions: %w", err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		ids = append(ids, id)
	}
	rows.Close()
	now := time.Now().UnixNano()
	for _, id := range ids {
		if _, err := m.db.ExecContext(ctx, `UPDATE sessions SET status='ended', ended_ns=?, end_reason='daemon restarted' WHERE id=?`, now, id); err != nil {
			return fmt.Errorf("close stale session: %w", err)
		}
		m.emit(ctx, "session.end", "system", id, map[string]any{"reason": "daemon restarted"})
	}
	return nil
}

func newID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "s_" + hex.EncodeToString(b)
}

// Start opens a session. It is refused while the kill switch is on.
func (m *Manager) Start(ctx context.Context, req StartRequest) (*Live, error) {
	m.mu.Lock()
	killed := m.killed
	m.mu.Unlock()
	if killed {
		return nil, ErrKilled
	}
	if req.Mode == "" {
		req.Mode = "default"
	}
	info := Info{
		ID: newID(), Client: req.Client, ClientName: req.ClientName, ClientVersion: req.ClientVersion,
		Transport: req.Transport, Workspaces: append([]string(nil), req.Workspaces...), Mode: req.Mode,
		StartedAt: time.Now().UTC(), Status: Active, Run: req.Run, Confined: req.Confined,
	}
	ws, _ := json.Marshal(info.Workspaces)
	// On disk with session.start, below.
	if err := execBeforeEvent(ctx, m.db, `INSERT INTO sessions (id, client, client_name, client_version, transport, workspaces, mode, started_ns, status, run, confined) VALUES (?,?,?,?,?,?,?,?, 'active', ?, ?)`,
		info.ID, info.Client, info.ClientName, info.ClientVersion, info.Transport, string(ws), info.Mode, info.StartedAt.UnixNano(), info.Run, info.Confined); err != nil {
		return nil, fmt.Errorf("record session: %w", db.Classify(err))
	}
	sctx, cancel := context.WithCancelCause(m.root)
	l := &Live{info: info, ctx: sctx, cancel: cancel}
	m.mu.Lock()
	m.live[info.ID] = l
	m.mu.Unlock()
	// One line per connection, whatever the transport (the MCP SDK's own
	// are debug only).
	m.logger.Info("agent connected", "session", info.ID, "token_name", info.Client, "client", info.ClientName, "version", info.ClientVersion, "transport", info.Transport)
	m.emit(ctx, "session.start", actorFor(info), info.ID, map[string]any{
		"client": info.Client, "client_name": info.ClientName, "client_version": info.ClientVersion,
		"transport": info.Transport, "workspaces": info.Workspaces, "mode": info.Mode, "run": info.Run, "confined": info.Confined,
	})
	return l, nil
}

func actorFor(i Info) string {
	name := i.Client
	if name == "" {
		name = i.ClientName
	}
	if name == "" {
		name = "unknown"
	}
	return "agent:" + name
}

// Actor is the audit actor for calls in this session.
func (l *Live) Actor() string { return actorFor(l.Snapshot()) }

// Get returns a live session.
func (m *Manager) Get(id string) (*Live, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	l, ok := m.live[id]
	return l, ok
}

// SetClientInfo records the MCP clientInfo once the client sent it.
func (m *Manager) SetClientInfo(ctx context.Context, id, name, version string) {
	l, ok := m.Get(id)
	if !ok {
		return
	}
	l.mu.Lock()
	l.info.ClientName, l.info.ClientVersion = name, version
	l.mu.Unlock()
	if _, err := m.db.ExecContext(ctx, `UPDATE sessions SET client_name=?, client_version=? WHERE id=?`, name, version, id); err != nil {
		m.logger.Warn("update session client info", "session", id, "err", err)
	}
}

// SetWorkspaces records the workspace a live session got after it
// started (the person allowed its project on a workspace card).
func (m *Manager) SetWorkspaces(ctx context.Context, id string, ws []string) {
	l, ok := m.Get(id)
	if !ok {
		return
	}
	l.mu.Lock()
	l.info.Workspaces = append([]string(nil), ws...)
	l.mu.Unlock()
	b, _ := json.Marshal(ws)
	if _, err := m.db.ExecContext(ctx, `UPDATE sessions SET workspaces=? WHERE id=?`, string(b), id); err != nil {
		m.logger.Warn("update session workspaces", "session", id, "err", err)
	}
	m.emit(ctx, "session.workspace", "human", id, map[string]any{"workspaces": ws})
}

// SetMode changes a live session's mode.
func (m *Manager) SetMode(ctx context.Context, id, mode, actor string) error {
	l, ok := m.Get(id)
	if !ok {
		return ErrNotActive
	}
	// The database first: a mode that was not saved never takes effect.
	if _, err := m.db.ExecContext(ctx, `UPDATE sessions SET mode=? WHERE id=?`, mode, id); err != nil {
		return fmt.Errorf("save session mode: %w", err)
	}
	l.mu.Lock()
	old := l.info.Mode
	l.info.Mode = mode
	l.mu.Unlock()
	m.emit(ctx, "session.mode", actor, id, map[string]any{"from": old, "to": mode})
	return nil
}

// SetGoal records what the person asked the agent to do (their prompt),
// which cards show and drift checks compare calls against.
func (m *Manager) SetGoal(ctx context.Context, id, goal string) error {
	l, ok := m.Get(id)
	if !ok {
		return ErrNotActive
	}
	if _, err := m.db.ExecContext(ctx, `UPDATE sessions SET goal=? WHERE id=?`, goal, id); err != nil {
		return fmt.Errorf("save session goal: %w", err)
	}
	l.mu.Lock()
	l.info.Goal = goal
	l.mu.Unlock()
	return nil
}

// SetIdle marks a live session idle (its client has not been heard from)
// or active again; the change is in the audit timeline.
func (m *Manager) SetIdle(ctx context.Context, id string, idle bool) {
	l, ok := m.Get(id)
	if !ok {
		return
	}
	l.mu.Lock()
	changed := l.info.Idle != idle
	l.info.Idle = idle
	l.mu.Unlock()
	if !changed {
		return
	}
	kind := "session.active"
	if idle {
		kind = "session.idle"
	}
	m.emit(ctx, kind, "system", id, map[string]any{})
}

// End closes a session normally (client disconnected).
func (m *Manager) End(ctx context.Context, id, reason string) {
	m.finish(ctx, id, Ended, reason, "system", ErrNotActive)
}

func (m *Manager) finish(ctx context.Context, id string, st Status, reason, actor string, cause error) {
	m.mu.Lock()
	l, ok := m.live[id]
	delete(m.live, id)
	m.mu.Unlock()
	if !ok {
		return
	}
	now := time.Now().UTC()
	l.mu.Lock()
	l.info.Status, l.info.EndedAt, l.info.EndReason = st, &now, reason
	c := l.info.Counters
	l.mu.Unlock()
	l.cancel(cause)
	// The caller's context may be the one being torn down; the record must
	// still be written.
	wctx := context.WithoutCancel(ctx)
	// On disk with the event that says it ended, below.
	if err := execBeforeEvent(wctx, m.db, `UPDATE sessions SET status=?, ended_ns=?, end_reason=?, calls=?, allowed=?, asked=?, denied=?, errors=?, output_bytes=?, cpu_ms=?, outcomes=? WHERE id=?`,
		string(st), now.UnixNano(), reason, c.Calls, c.Allowed, c.Asked, c.Denied, c.Errors, c.OutputBytes, c.CPUMillis, tallyJSON(c.Outcomes), id); err != nil {
		m.logger.Error("record session end", "session", id, "err", err)
	}
	kind := "session.end"
	if st == Killed {
		kind = "session.killed"
	}
	m.emit(wctx, kind, actor, id, map[string]any{"reason": reason, "status": st})
}

// Kill stops every session at once: each is marked killed and its context
// cancelled, which reaches every call and child process. New sessions and
// calls are refused until Resume. It returns how many sessions it stopped.
func (m *Manager) Kill(ctx context.Context, actor, reason string) int {
	m.mu.Lock()
	m.killed = true
	ids := make([]string, 0, len(m.live))
	for id := range m.live {
		ids = append(ids, id)
	}
	m.mu.Unlock()
	m.emit(ctx, "system.kill", actor, "", map[string]any{"reason": reason, "sessions": len(ids)})
	for _, id := range ids {
		m.finish(ctx, id, Killed, reason, actor, ErrKilled)
	}
	m.logger.Warn("kill switch", "actor", actor, "sessions", len(ids))
	return len(ids)
}

// Pause makes new calls wait until Resume. It reports whether the daemon
// was running before (a second pause changes nothing and records nothing).
func (m *Manager) Pause(ctx context.Context, actor, reason string) bool {
	m.mu.Lock()
	was := m.paused
	m.paused = true
	m.mu.Unlock()
	if !was {
		m.emit(ctx, "system.pause", actor, "", map[string]any{"reason": reason})
	}
	return !was
}

// Resumed says what a Resume lifted; both false means nothing was paused
// or stopped.
type Resumed struct {
	WasPaused bool `json:"was_paused"`
	WasKilled bool `json:"was_killed"`
}

// Resume releases paused calls and lifts the kill switch.
func (m *Manager) Resume(ctx context.Context, actor, reason string) Resumed {
	m.mu.Lock()
	r := Resumed{WasPaused: m.paused, WasKilled: m.killed}
	m.paused, m.killed = false, false
	close(m.resumed)
	m.resumed = make(chan struct{})
	m.mu.Unlock()
	if r.WasPaused || r.WasKilled {
		m.emit(ctx, "system.resume", actor, "", map[string]any{"was_paused": r.WasPaused, "was_killed": r.WasKilled, "reason": reason})
	}
	return r
}

// Switches is the daemon-wide switch state.
type Switches struct {
	Paused bool `json:"paused"`
	Killed bool `json:"killed"`
	Active int  `json:"active_sessions"`
	// Waiting is how many calls the pause holds.
	Waiting int `json:"waiting_calls"`
}

// Switches reports the switches and the number of live sessions.
func (m *Manager) Switches() Switches {
	m.mu.Lock()
	defer m.mu.Unlock()
	return Switches{Paused: m.paused, Killed: m.killed, Active: len(m.live), Waiting: m.waiting}
}

// Admit is called before every tool call. It waits while paused and refuses
// when killed or when the session is gone. ctx should be the call's context.
func (m *Manager) Admit(ctx context.Context, id string) error {
	for {
		m.mu.Lock()
		killed, paused, resumed := m.killed, m.paused, m.resumed
		l, ok := m.live[id]
		m.mu.Unlock()
		switch {
		case killed:
			return ErrKilled
		case !ok:
			return ErrNotActive
		case !paused:
			return nil
		}
		if err := m.waitResume(ctx, l, resumed); err != nil {
			return err
		}
	}
}

// waitResume holds a call until resume, counted so `gatehouse approvals`
// can say what the pause holds.
func (m *Manager) waitResume(ctx context.Context, l *Live, resumed <-chan struct{}) error {
	m.mu.Lock()
	m.waiting++
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		m.waiting--
		m.mu.Unlock()
	}()
	select {
	case <-resumed:
		return nil
	case <-l.ctx.Done():
		return context.Cause(l.ctx)
	case <-ctx.Done():
		return fmt.Errorf("%w (%w)", ErrPaused, ctx.Err())
	}
}

// Count adds to a live session's counters (persisted at the end and
// periodically by Flush).
func (m *Manager) Count(id string, d Counters) {
	if l, ok := m.Get(id); ok {
		l.mu.Lock()
		l.info.Counters.add(d)
		l.mu.Unlock()
	}
}

// Flush writes live counters to the database.
func (m *Manager) Flush(ctx context.Context) {
	m.mu.Lock()
	lives := slices.Collect(maps.Values(m.live))
	m.mu.Unlock()
	for _, l := range lives {
		i := l.Snapshot()
		c := i.Counters
		if _, err := m.db.ExecContext(ctx, `UPDATE sessions SET calls=?, allowed=?, asked=?, denied=?, errors=?, output_bytes=?, cpu_ms=?, outcomes=? WHERE id=? AND status='active'`,
			c.Calls, c.Allowed, c.Asked, c.Denied, c.Errors, c.OutputBytes, c.CPUMillis, tallyJSON(c.Outcomes), i.ID); err != nil {
			m.logger.Warn("flush session counters", "session", i.ID, "err", err)
		}
	}
}
