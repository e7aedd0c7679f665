// Package approval holds calls that policy answered "ask" until the person
// decides. Requests are persisted and published; decisions arrive only
// through the control API (never MCP); a timeout, the kill switch or the end
// of the session deny.
package approval

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/randid"
	"github.com/gatehouse-dev/gatehouse/backend/session"
)

// DefaultTimeout denies an unanswered request.
const DefaultTimeout = 120 * time.Second

// DefaultMaxPerSession caps the cards one session has waiting: an agent
// that floods the person with cards gets refused beyond it.
const DefaultMaxPerSession = 10

// Kind separates a call approval from an ask_human question.
type Kind string

const (
	KindCall     Kind = "call"
	KindQuestion Kind = "question"
	// KindLimit asks to extend a session's spent budget.
	KindLimit Kind = "limit"
	// KindNetwork asks whether a sandboxed command may connect to a
	// domain (Request.Domain, Request.Port) through the egress proxy.
	KindNetwork Kind = "network"
	// KindEffect holds a staged command's change set (Request.Changes)
	// until the person applies it (allow) or discards it (deny).
	KindEffect Kind = "effect"
	// KindWorkspace asks whether Gatehouse may serve a project an agent
	// started in (Request.Paths[0]) that no workspace root holds.
	KindWorkspace Kind = "workspace"
)

// Scope is how far an allow reaches.
type Scope string

const (
	ScopeOnce    Scope = "once"
	ScopeSession Scope = "session"
	ScopeAlways  Scope = "always"
)

// Risk is one risk note on the card.
type Risk struct {
	Kind   string `json:"kind"`
	Detail string `json:"detail"`
}

// Request is the card the person sees. Everything in it is already redacted.
type Request struct {
	ID      string         `json:"id"`
	Kind    Kind           `json:"kind"`
	Session string         `json:"session"`
	CallID  string         `json:"call_id"`
	Actor   string         `json:"actor"`
	Tool    string         `json:"tool"`
	Args    map[string]any `json:"args,omitempty"`
	Argv    []string       `json:"argv,omitempty"`
	Binary  string         `json:"binary,omitempty"`
	Paths   []string       `json:"paths,omitempty"`
	URL     string         `json:"url,omitempty"`
	Domain  string         `json:"domain,omitempty"` // KindNetwork
	Port    int            `json:"port,omitempty"`   // KindNetwork
	// KindEffect: what the staged command did, what was held and why, and
	// paths the person also changed meanwhile (their version wins unless
	// the decision names them in Staged).
	Changes []Change `json:"changes,omitempty"`
	// Staged: the workspace is untouched until allowed (false: the run
	// could not be staged, its changes are in the workspace, and a deny
	// rolls them back).
	Staged    bool           `json:"staged,omitempty"`
	Findings  []string       `json:"findings,omitempty"`
	Conflicts []ConflictNote `json:"conflicts,omitempty"`
	Diff      string         `json:"diff,omitempty"`
	Question  string         `json:"question,omitempty"`
	Reason    string         `json:"reason"`
	Rule      string         `json:"rule"`
	Risks     []Risk         `json:"risks,omitempty"`
	// AlwaysRule is the policy snippet "Always allow" would write, and
	// SessionRule what "for this session" would allow.
	AlwaysRule  string `json:"always_rule,omitempty"`
	SessionRule string `json:"session_rule,omitempty"`
	// AlwaysNote offers "always" on a card with no policy rule to write,
	// and says what it keeps instead (a line in the config file).
	AlwaysNote string `json:"always_note,omitempty"`
	// Cwd is where the command would run.
	Cwd string `json:"cwd,omitempty"`
	// Via is how the call came ("hook": the agent's own tool, Native
	// names it); empty for Gatehouse's MCP tools.
	Via    string `json:"via,omitempty"`
	Native string `json:"native,omitempty"`
	// NoSessionScope: "allow for this session" would reach other runs of
	// the same client, so it is not offered.
	NoSessionScope bool `json:"no_session_scope,omitempty"`
	// Goal is the person's request to the agent, when the agent reports it.
	Goal      string    `json:"goal,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	ExpiresAt time.Time `json:"expires_at"`
}

// Change is one path a staged command changed.
type Change struct {
	Path     string `json:"path"`
	Op       string `json:"op"`   // create, modify, delete
	Kind     string `json:"kind"` // file, dir, symlink, special
	Mode     string `json:"mode,omitempty"`
	OldMode  string `json:"old_mode,omitempty"`
	Size     int64  `json:"size,omitempty"`
	Target   string `json:"target,omitempty"`
	ModeOnly bool   `json:"mode_only,omitempty"`
}

// ConflictNote is a changed path someone else changed meanwhile.
type ConflictNote struct {
	Path string `json:"path"`
	Why  string `json:"why"`
}

// Decision is the person's answer (or the system's, on timeout or kill).
type Decision struct {
	Allow   bool   `json:"allow"`
	Scope   Scope  `json:"scope"`
	Message string `json:"message,omitempty"` // deny reason, or the answer to a question
	// Rule, for an "always" allow, is the rule as the person edited it on
	// the card (a [[rule]] table); empty keeps the card's AlwaysRule.
	Rule string `json:"rule,omitempty"`
	// Staged, for an effect card, lists conflicting paths to overwrite
	// with the staged version; the others keep the person's.
	Staged []string `json:"staged,omitempty"`
	By     string   `json:"by"` // human, or system:timeout / system:kill / system:session-ended
	// Exposure and Device say where a person's decision came from when it
	// was not the desktop: the exposure's id and the device's user agent.
	Exposure string `json:"exposure,omitempty"`
	Device   string `json:"device,omitempty"`
}

var (
	ErrNotFound = errors.New("no pending approval with that id; it may have been decided or expired already")
	ErrBadScope = errors.New("scope must be once, session or always")
	// ErrWithdrawn: the agent cancelled the call, so a decision would run
	// nothing for nobody. It is an ErrNotFound too.
	ErrWithdrawn error = notPending("that request was withdrawn: the agent cancelled the call before you decided, so nothing ran")
	// ErrSettled: someone (or a timeout) decided first. It is an
	// ErrNotFound too.
	ErrSettled error = notPending("that request was already decided or has expired")
)

// notPending is a more precise ErrNotFound.
type notPending string

func (e notPending) Error() string        { return string(e) }
func (e notPending) Is(target error) bool { return target == ErrNotFound }

// settledError says why id is not pending.
func (b *Broker) settledError(ctx context.Context, id string) error {
	var status string
	err := b.db.QueryRowContext(ctx, `SELECT status FROM approvals WHERE id=?`, id).Scan(&status)
	switch {
	case err != nil:
		return ErrNotFound
	case status == "withdrawn":
		return ErrWithdrawn
	}
	return ErrSettled
}

// Emitter records an audit event.
type Emitter func(ctx context.Context, kind, actor, session, call string, payload any)

// Broker is the approval queue.
type Broker struct {
	db         *sql.DB
	emit       Emitter
	logger     *slog.Logger
	timeout    time.Duration
	maxPerSess int

	mu      sync.Mutex
	pending map[string]*waiter
	asking  map[string]int // card slots taken per session (see reserve)
	// closed, once set, is the decision every request gets (see Close).
	closed *Decision
	// localWins and after are the race rule's window and clock (race.go);
	// local remembers cards decided on the computer, id → card expiry.
	localWins time.Duration
	after     func(time.Duration) <-chan time.Time
	local     map[string]time.Time
}

type waiter struct {
	req  Request
	done chan Decision // buffered 1; written once under mu
	// held is a device's decision waiting out the local-wins window.
	held *held
}

// Options tune a broker; zero values keep the defaults.
type Options struct {
	// Timeout denies an unanswered request (DefaultTimeout).
	Timeout time.Duration
	// MaxPerSession caps the requests one session has waiting
	// (DefaultMaxPerSession); a request over it fails at once.
	MaxPerSession int
	// LocalWins is how long a decision made through an exposure waits
	// for one made on the computer (DefaultLocalWins; negative: none).
	LocalWins time.Duration
}

// New returns a broker.
func New(db *sql.DB, emit Emitter, logger *slog.Logger, o Options) *Broker {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxPerSession <= 0 {
		o.MaxPerSession = DefaultMaxPerSession
	}
	if o.LocalWins == 0 {
		o.LocalWins = DefaultLocalWins
	}
	return &Broker{db: db, emit: emit, logger: logger, timeout: o.Timeout, maxPerSess: o.MaxPerSession, pending: map[string]*waiter{}, asking: map[string]int{},
		localWins: o.LocalWins, after: time.After, local: map[string]time.Time{}}
}

// TooManyError refuses a request beyond the per-session cap.
type TooManyError struct{ Max int }

func (e *TooManyError) Error() string {
	return fmt.Sprintf("the person already has %d of this session's calls waiting for a decision; wait for those answers before asking for more", e.Max)
}

// Timeout is the automatic-deny delay.
func (b *Broker) Timeout() time.Duration { return b.timeout }

// ExpireStale marks requests left pending by a previous daemon as expired:
// nobody is waiting for them any more.
func (b *Broker) ExpireStale(ctx context.Context) error {
	rows, err := b.db.QueryContext(ctx, `SELECT id, session, call_id FROM approvals WHERE status='pending'`)
	if err != nil {
		return fmt.Errorf("find stale approvals: %w", err)
	}
	type stale struct{ id, sess, call string }
	var list []stale
	for rows.Next() {
		var s stale
		if err := rows.Scan(&s.id, &s.sess, &s.call); err != nil {
			rows.Close()
			return err
		}
		list = append(list, s)
	}
	rows.Close()
	for _, s := range list {
		if _, err := b.db.ExecContext(ctx, `UPDATE approvals SET status='expired', decided_by='system:restart', decided_ns=? WHERE id=?`, time.Now().UnixNano(), s.id); err != nil {
			return fmt.Errorf("expire approval: %w", err)
		}
		b.emit(ctx, "approval.expired", "system", s.sess, s.call, map[string]any{"approval": s.id, "reason": "daemon restarted"})
	}
	return nil
}

func newID() string { return randid.New("a_", 8) }

// Ask files req and blocks until a decision, the timeout, or ctx ends (the
// session was killed or ended, or the agent gave up). Anything but an
// explicit allow is a deny.
func (b *Broker) Ask(ctx context.Context, req Request) (Decision, error) {
	if req.Kind == "" {
		req.Kind = KindCall
	}
	if n, ok := b.reserve(req.Session); !ok {
		b.emit(ctx, "approval.refused", "system", req.Session, req.CallID, map[string]any{"reason": "too many cards waiting", "waiting": n, "max": b.maxPerSess})
		return Decision{}, &TooManyError{Max: b.maxPerSess}
	}
	defer b.unreserve(req.Session)
	req.ID = newID()
	req.CreatedAt = time.Now().UTC()
	req.ExpiresAt = req.CreatedAt.Add(b.timeout)
	body, err := json.Marshal(req)
	if err != nil {
		return Decision{}, err
	}
	if _, err := b.db.ExecContext(ctx, `INSERT INTO approvals (id, session, call_id, kind, request, status, created_ns, expires_ns) VALUES (?,?,?,?,?, 'pending', ?, ?)`,
		req.ID, req.Session, req.CallID, string(req.Kind), string(body), req.CreatedAt.UnixNano(), req.ExpiresAt.UnixNano()); err != nil {
		return Decision{}, fmt.Errorf("file approval request: %w", err)
	}
	w := &waiter{req: req, done: make(chan Decision, 1)}
	b.mu.Lock()
	b.pending[req.ID] = w
	closed := b.closed
	b.mu.Unlock()
	// Published after it is pending, so a UI that reacts at once can decide.
	b.emit(ctx, "approval.requested", "policy", req.Session, req.CallID, req)
	if closed != nil {
		return b.resolve(context.WithoutCancel(ctx), req.ID, *closed)
	}

	timer := time.NewTimer(b.timeout)
	defer timer.Stop()
	select {
	case d := <-w.done:
		return d, nil
	case <-timer.C:
		return b.resolve(context.WithoutCancel(ctx), req.ID, Decision{Allow: false, Scope: ScopeOnce, By: "system:timeout",
			Message: fmt.Sprintf("nobody answered within %s, so the call was denied", b.timeout)})
	case <-ctx.Done():
		by, msg := "system:withdrawn", "the agent cancelled the call before anyone answered"
		var w Withdrawal
		switch cause := context.Cause(ctx); {
		case errors.Is(cause, session.ErrKilled):
			by, msg = "system:kill", session.KilledMessage
		case errors.Is(cause, session.ErrNotActive):
			by, msg = "system:session-ended", "the session ended before anyone answered"
		case errors.As(cause, &w):
			msg = w.WithdrawalReason()
		}
		return b.resolve(context.WithoutCancel(ctx), req.ID, Decision{Allow: false, Scope: ScopeOnce, By: by, Message: msg})
	}
}

// Withdrawal is a cause, on the context a question was asked with, that
// says in one sentence why no answer is needed any more (the command that
// asked has ended).
type Withdrawal interface {
	error
	WithdrawalReason() string
}

// resolve settles a pending request exactly once. If someone else settled
// it first, their decision wins and is returned.
func (b *Broker) resolve(ctx context.Context, id string, d Decision) (Decision, error) {
	b.mu.Lock()
	w, ok := b.pending[id]
	var h *held
	if ok {
		delete(b.pending, id)
		h, w.held = w.held, nil
		if isLocal(d) {
			b.rememberLocal(id, w.req.ExpiresAt)
		}
	}
	b.mu.Unlock()
	if !ok {
		return Decision{}, ErrNotFound
	}
	status := b.settle(ctx, w, d)
	if h != nil {
		b.override(ctx, w, h, d, status)
	}
	return d, nil
}

// settle records w's decision, audits it and hands it to the waiting
// call; w is already out of pending. It returns the card's status.
func (b *Broker) settle(ctx context.Context, w *waiter, d Decision) string {
	id := w.req.ID
	status := "denied"
	switch {
	case d.Allow && w.req.Kind == KindQuestion:
		status = "answered"
	case d.Allow:
		status = "allowed"
	case d.By == "system:timeout":
		status = "expired"
	case d.By == "system:withdrawn" || d.By == "system:session-ended":
		// Nobody waits for the answer any more: the card is taken back.
		status = "withdrawn"
	}
	if _, err := b.db.ExecContext(ctx, `UPDATE approvals SET status=?, scope=?, message=?, decided_by=?, decided_ns=? WHERE id=?`,
		status, string(d.Scope), d.Message, d.By, time.Now().UnixNano(), id); err != nil {
		b.logger.Error("record approval decision", "approval", id, "err", err)
	}
	actor := "system"
	if d.By == "human" {
		actor = "human"
	}
	kind := "approval.decided"
	if status == "withdrawn" {
		kind = "approval.withdrawn"
	}
	payload := map[string]any{
		"approval": id, "status": status, "scope": d.Scope, "message": d.Message, "by": d.By,
	}
	if d.Exposure != "" {
		payload["exposure"], payload["device"] = d.Exposure, d.Device
	}
	b.emit(ctx, kind, actor, w.req.Session, w.req.CallID, payload)
	w.done <- d
	return status
}

// Decide is the person's answer, from the control API or through an
// exposure (d.Exposure set), never MCP. A decision through an exposure
// waits out the local-wins window first (race.go).
func (b *Broker) Decide(ctx context.Context, id string, d Decision) (Request, error) {
	switch d.Scope {
	case "":
		d.Scope = ScopeOnce
	case ScopeOnce, ScopeSession, ScopeAlways:
	default:
		return Request{}, ErrBadScope
	}
	d.By = "human"
	b.mu.Lock()
	w, ok := b.pending[id]
	b.mu.Unlock()
	if !ok {
		return Request{}, b.notPendingError(ctx, id, d)
	}
	if (w.req.Kind == KindQuestion || w.req.NoSessionScope) && d.Scope == ScopeSession {
		d.Scope = ScopeOnce
	}
	if w.req.Kind == KindQuestion {
		d.Scope = ScopeOnce
	}
	if !isLocal(d) && b.localWins > 0 {
		return b.decideRemote(ctx, w, d)
	}
	if _, err := b.resolve(ctx, id, d); err != nil {
		return Request{}, err
	}
	return w.req, nil
}

// Lookup returns the card id names while it waits; false once it was
// decided, withdrawn or expired (or never was).
func (b *Broker) Lookup(id string) (Request, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	w, ok := b.pending[id]
	if !ok {
		return Request{}, false
	}
	return w.req, true
}

// Pending lists open requests, oldest first.
func (b *Broker) Pending() []Request {
	b.mu.Lock()
	out := make([]Request, 0, len(b.pending))
	for _, w := range b.pending {
		out = append(out, w.req)
	}
	b.mu.Unlock()
	sortByCreated(out)
	return out
}

// reserve takes one of a session's card slots for the length of an Ask;
// false (with the count) when all are taken. Counting and taking are one
// step, so concurrent calls cannot all slip under the cap.
func (b *Broker) reserve(sess string) (int, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := b.asking[sess]
	if n >= b.maxPerSess {
		return n, false
	}
	b.asking[sess] = n + 1
	return n, true
}

func (b *Broker) unreserve(sess string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.asking[sess]--; b.asking[sess] <= 0 {
		delete(b.asking, sess)
	}
}

// DenySession denies every request waiting from one session (the person,
// facing a flood of cards from one agent).
func (b *Broker) DenySession(ctx context.Context, sess, msg string) int {
	b.mu.Lock()
	var ids []string
	for id, w := range b.pending {
		if w.req.Session == sess {
			ids = append(ids, id)
		}
	}
	b.mu.Unlock()
	n := 0
	for _, id := range ids {
		if _, err := b.resolve(ctx, id, Decision{Allow: false, Scope: ScopeOnce, By: "human", Message: msg}); err == nil {
			n++
		}
	}
	return n
}

// DenyAll denies every pending request (the kill switch).
func (b *Broker) DenyAll(ctx context.Context, by, msg string) int {
	b.mu.Lock()
	ids := make([]string, 0, len(b.pending))
	for id := range b.pending {
		ids = append(ids, id)
	}
	b.mu.Unlock()
	n := 0
	for _, id := range ids {
		if _, err := b.resolve(ctx, id, Decision{Allow: false, Scope: ScopeOnce, By: by, Message: msg}); err == nil {
			n++
		}
	}
	return n
}
