// Package toolcall is the path every tool call takes: admit (pause/kill),
// validate, decide (policy), ask the person, checkpoint, run confined,
// redact and bound the output, and record each step in the audit log.
package toolcall

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/gatehouse-dev/gatehouse/backend/approval"
	"github.com/gatehouse-dev/gatehouse/backend/netguard"
	"github.com/gatehouse-dev/gatehouse/backend/policy"
	"github.com/gatehouse-dev/gatehouse/backend/session"
	"github.com/gatehouse-dev/gatehouse/backend/snapshot"
	"github.com/gatehouse-dev/gatehouse/backend/workspace"
	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// MaxArgsBytes bounds a call's arguments (the HTTP gate caps the body too).
const MaxArgsBytes = 10 << 20

// Recorder appends an audit event and returns once it is durable.
type Recorder func(ctx context.Context, kind, actor, sess, call string, payload any) error

// Deps is what the runner needs from the daemon.
type Deps struct {
	Sessions  *session.Manager
	Approvals *approval.Broker
	Policy    *PolicyHolder
	Record    Recorder
	// RecordAsync queues an event behind earlier ones without waiting; a
	// later Record returning means it is durable too (one ordered writer).
	RecordAsync func(ctx context.Context, kind, actor, sess, call string, payload any)
	// Announce, if set, tells the audit writer that this call will record
	// its result shortly, so a commit about to wait for the disk can hold
	// on for it and share the fsync; done withdraws the announcement.
	Announce func(ctx context.Context) (_ context.Context, done func())
	// RecordWritten, if set, records a call before it runs: the row is in
	// the database (it survives the daemon being killed) and its fsync
	// comes with the call's durable result, overlapping the call's work.
	RecordWritten Recorder
	// Redact removes secrets from text before it leaves the daemon.
	Redact func(string) string
	// EnvFor returns configured secrets to inject for a binary.
	EnvFor  func(binary string) map[string]string
	Sandbox sandbox.Backend
	// Snapshots checkpoints the workspace around mutating calls; nil runs
	// calls uncheckpointed (and says so in the audit log).
	Snapshots *snapshot.Store
	// Fetch tunes fetch_url (size cap, timeout); CheckHost is set per call.
	Fetch netguard.Options
	// Hidden are host paths never visible in a sandbox (the data dir).
	Hidden []string
	Logger *slog.Logger
}

// Runner executes tool calls.
type Runner struct {
	deps  Deps
	tools map[string]*Tool
	order []string
	seq   atomic.Int64
}

// Tool is one MCP tool.
type Tool struct {
	Name        string
	Title       string
	Description string
	Schema      json.RawMessage
	ReadOnly    bool
	// LocalRead tools only read the workspace: no effect happens before
	// the result, so only the result's audit row needs to wait.
	LocalRead bool
	resolved  *jsonschema.Resolved
	// Prepare turns validated arguments into a policy call and the work.
	Prepare func(ctx context.Context, st *State, args json.RawMessage) (*Plan, error)
}

// Plan is a validated call, ready for policy.
type Plan struct {
	Call policy.Call
	// Card fields shown on an approval.
	Diff     string
	Question string
	Summary  map[string]any
	// Mutates lists the workspace paths a file tool will change (for its
	// checkpoint); MutatesAll (run_command) checkpoints the whole workspace.
	Mutates    []workspace.Path
	MutatesAll bool
	Run        func(ctx context.Context) (Output, error)
}

// Output is what a tool produced, before redaction.
type Output struct {
	Text       string
	Structured map[string]any
	IsError    bool
	// External marks content from outside the workspace (a web page, a file
	// elsewhere); it is labelled as data for the model.
	External     string // "", "file" or "web"
	Source       string
	OutputBytes  int64
	CPU          time.Duration
	ExecFinished map[string]any // for the exec.finished audit row
}

// Result goes back to the agent.
type Result struct {
	CallID     string
	Text       string
	Structured map[string]any
	IsError    bool
}

// New builds a runner with the built-in tools.
func New(deps Deps) (*Runner, error) {
	r := &Runner{deps: deps, tools: map[string]*Tool{}}
	for _, t := range builtinTools(r) {
		var s jsonschema.Schema
		if err := json.Unmarshal(t.Schema, &s); err != nil {
			return nil, fmt.Errorf("tool %s schema: %w", t.Name, err)
		}
		res, err := s.Resolve(nil)
		if err != nil {
			return nil, fmt.Errorf("tool %s schema: %w", t.Name, err)
		}
		t.resolved = res
		r.tools[t.Name] = t
		r.order = append(r.order, t.Name)
	}
	return r, nil
}

// Tools lists the tools in registration order.
func (r *Runner) Tools() []*Tool {
	out := make([]*Tool, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.tools[n])
	}
	return out
}

// Tool is the tool named name, or nil.
func (r *Runner) Tool(name string) *Tool { return r.tools[name] }

// State is one agent session's view: its live record, workspace, sandbox
// session and the grants the person gave for this session.
type State struct {
	Live       *session.Live
	Workspaces []string
	Roots      *workspace.Roots
	Elicit     func(ctx context.Context, question string) (string, error) // nil when the client cannot

	mu      sync.Mutex
	grants  []policy.Rule
	sandbox sandbox.Session
	limits  Limits
	limitMu sync.Mutex
	closed  bool
}

// NewState makes a session's state with the given budgets.
func NewState(live *session.Live, workspaces []string, roots *workspace.Roots, limits Limits) *State {
	return &State{Live: live, Workspaces: workspaces, Roots: roots, limits: limits}
}

// AddGrant remembers an "allow for this session".
func (s *State) AddGrant(r policy.Rule) {
	s.mu.Lock()
	s.grants = append(s.grants, r)
	s.mu.Unlock()
}

func (s *State) policySession(home string) policy.Session {
	info := s.Live.Snapshot()
	mode, err := policy.ParseMode(info.Mode)
	if err != nil {
		mode = policy.ModeDefault
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return policy.Session{Mode: mode, Workspaces: s.Workspaces, Home: home, Grants: append([]policy.Rule(nil), s.grants...)}
}

// Close releases the session's sandbox (the container, if any).
func (s *State) Close(ctx context.Context) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	sb := s.sandbox
	s.sandbox = nil
	s.mu.Unlock()
	if sb != nil {
		_ = sb.Close(ctx)
	}
	if s.Roots != nil {
		_ = s.Roots.Close()
	}
}

func (r *Runner) newCallID() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return fmt.Sprintf("c_%d_%s", r.seq.Add(1), hex.EncodeToString(b))
}

// toolError is a failure the agent should see as a tool error.
type toolError struct{ msg string }

func (e *toolError) Error() string { return e.msg }

func errorf(format string, a ...any) error { return &toolError{msg: fmt.Sprintf(format, a...)} }

// Call runs one tool call through the whole gate. ctx is the MCP request's
// context; it is additionally cancelled when the session ends or is killed.
func (r *Runner) Call(ctx context.Context, st *State, name string, raw json.RawMessage) Result {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(st.Live.Context(), func() { cancel(context.Cause(st.Live.Context())) })
	defer stop()

	sess := st.Live.ID()
	actor := st.Live.Actor()
	callID := r.newCallID()
	ctx = withCallID(ctx, callID)
	r.deps.Sessions.Count(sess, session.Counters{Calls: 1})
	fail := func(kind string, err error) Result {
		msg := r.redact(err.Error())
		r.deps.Sessions.Count(sess, session.Counters{Errors: 1})
		r.recordSync(ctx, kind, "system", sess, callID, map[string]any{"tool": name, "error": msg})
		return Result{CallID: callID, Text: msg, IsError: true}
	}
	t, known := r.tools[name]
	callEvent := map[string]any{"tool": name, "args": r.argsForAudit(raw)}
	if known && t.LocalRead {
		// Nothing leaves the daemon before the result is durable, and that
		// wait covers this row too (one ordered writer); see readlog.go.
		l := &callLog{sess: sess, callID: callID, settle: func() {}}
		if r.deps.Announce != nil {
			ctx, l.settle = r.deps.Announce(ctx)
			defer l.settle()
		}
		ctx = withCallLog(ctx, l)
		l.hold("tool.call", actor, callEvent)
	} else if err := r.recordCall(ctx, actor, sess, callID, callEvent); err != nil {
		// No audit row, no call.
		r.deps.Logger.Error("audit tool.call", "err", err)
		return Result{CallID: callID, Text: "Gatehouse could not record this call in its audit log, so it did not run it: " + err.Error(), IsError: true}
	}
	if err := r.deps.Sessions.Admit(ctx, sess); err != nil {
		return fail("tool.refused", err)
	}
	if err := r.checkLimits(ctx, st); err != nil {
		return fail("tool.refused", err)
	}
	if !known {
		return fail("tool.invalid", errorf("unknown tool %q; call tools/list to see what exists", name))
	}
	if err := validate(t, raw); err != nil {
		return fail("tool.invalid", err)
	}
	if v := map[string]any{"tool": name}; !callLogFrom(ctx).hold("tool.validated", "system", v) {
		r.record(ctx, "tool.validated", "system", sess, callID, v)
	}
	plan, err := t.Prepare(ctx, st, raw)
	if err != nil {
		return fail("tool.invalid", err)
	}
	if err := r.authorize(ctx, st, t, plan, callID); err != nil {
		return fail("tool.denied", err)
	}
	if err := r.checkpoint(ctx, st, plan, snapshot.Pre); err != nil {
		return fail("tool.refused", errorf("Gatehouse could not checkpoint the workspace before this call, so it did not run it: %v", err))
	}
	out, err := plan.Run(ctx)
	// After, whatever happened: a failed command may have changed files.
	if cerr := r.checkpoint(context.WithoutCancel(ctx), st, plan, snapshot.Post); cerr != nil {
		r.deps.Logger.Warn("post-call checkpoint", "err", cerr)
	}
	if err != nil {
		if cause := context.Cause(ctx); cause != nil && errors.Is(cause, session.ErrKilled) {
			err = session.ErrKilled
		}
		return fail("tool.error", err)
	}
	return r.finish(ctx, st, t, callID, out)
}

func validate(t *Tool, raw json.RawMessage) error {
	if len(raw) > MaxArgsBytes {
		return errorf("arguments are larger than 10 MiB")
	}
	if len(raw) == 0 {
		raw = json.RawMessage(`{}`)
	}
	var inst any
	if err := json.Unmarshal(raw, &inst); err != nil {
		return errorf("arguments are not valid JSON: %v", err)
	}
	if err := t.resolved.Validate(inst); err != nil {
		return errorf("invalid arguments for %s: %v", t.Name, err)
	}
	return nil
}

// finish redacts, bounds and labels the output, then records the result.
func (r *Runner) finish(ctx context.Context, st *State, t *Tool, callID string, out Output) Result {
	sess := st.Live.ID()
	text := r.redact(out.Text)
	if out.External != "" {
		text = WrapExternal(out.External, out.Source, text)
	}
	text, truncated := bound(text, MaxResultBytes)
	structured := redactMap(r.redact, out.Structured)
	r.deps.Sessions.Count(sess, session.Counters{OutputBytes: int64(len(text)), CPUMillis: out.CPU.Milliseconds()})
	if out.IsError {
		r.deps.Sessions.Count(sess, session.Counters{Errors: 1})
	}
	preview, _ := bound(text, 2048)
	actor, payload := "system", map[string]any{
		"tool": t.Name, "is_error": out.IsError, "bytes": len(text), "truncated": truncated, "preview": preview,
	}
	if call, dec, agent, ok := callLogFrom(ctx).merge(); ok {
		// The one row of a local read: who asked for what, the decision and
		// the result.
		actor = agent
		payload["args"] = call["args"]
		for _, k := range []string{"verdict", "reason", "rule"} {
			payload[k] = dec[k]
		}
		if rs, _ := dec["risks"].([]approval.Risk); len(rs) > 0 {
			payload["risks"] = rs
		}
	} else {
		r.flushHeld(ctx)
	}
	if err := r.deps.Record(context.WithoutCancel(ctx), "tool.result", actor, sess, callID, payload); err != nil {
		// No audit row, no answer.
		r.deps.Logger.Error("audit tool.result", "err", err)
		return Result{CallID: callID, Text: "Gatehouse could not record this call's result in its audit log, so it withheld it: " + err.Error(), IsError: true}
	}
	return Result{CallID: callID, Text: text, Structured: structured, IsError: out.IsError}
}

// MaxResultBytes bounds what one call returns to the model.
const MaxResultBytes = 256 << 10

func bound(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[gatehouse: output truncated, %d of %d bytes shown]", cut, len(s)), true
}

func (r *Runner) redact(s string) string {
	if r.deps.Redact == nil {
		return s
	}
	return r.deps.Redact(s)
}

// redactMap redacts the string values of a tool's structured result, which
// is built from JSON-shaped values (maps, slices, strings, numbers, bools).
func redactMap(redact func(string) string, m map[string]any) map[string]any {
	if m == nil || redact == nil {
		return m
	}
	return walkStrings(m, redact).(map[string]any)
}

func walkStrings(v any, f func(string) string) any {
	switch x := v.(type) {
	case string:
		return f(x)
	case []any:
		for i := range x {
			x[i] = walkStrings(x[i], f)
		}
	case []string:
		for i := range x {
			x[i] = f(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = walkStrings(x[k], f)
		}
	}
	return v
}

// argsForAudit keeps the audit row bounded and free of secrets.
func (r *Runner) argsForAudit(raw json.RawMessage) any {
	if len(raw) > 64<<10 {
		return map[string]any{"truncated": true, "bytes": len(raw), "head": r.redact(string(raw[:4096]))}
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return map[string]any{"invalid_json": true, "bytes": len(raw)}
	}
	return walkStrings(v, func(s string) string {
		s = r.redact(s)
		if len(s) > 8192 {
			return s[:8192] + "…"
		}
		return s
	})
}

// recordCall records a call before anything of it happens.
func (r *Runner) recordCall(ctx context.Context, actor, sess, callID string, ev map[string]any) error {
	if r.deps.RecordWritten != nil {
		return r.deps.RecordWritten(ctx, "tool.call", actor, sess, callID, ev)
	}
	return r.deps.Record(ctx, "tool.call", actor, sess, callID, ev)
}

// record queues an intermediate event; the call's final event waits for
// durability of everything before it.
func (r *Runner) record(ctx context.Context, kind, actor, sess, call string, payload any) {
	r.flushHeld(ctx)
	r.recordNow(ctx, kind, actor, sess, call, payload)
}

// recordNow is record without writing the call's held rows first.
func (r *Runner) recordNow(ctx context.Context, kind, actor, sess, call string, payload any) {
	if r.deps.RecordAsync != nil {
		r.deps.RecordAsync(context.WithoutCancel(ctx), kind, actor, sess, call, payload)
		return
	}
	r.recordSync(ctx, kind, actor, sess, call, payload)
}

func (r *Runner) recordSync(ctx context.Context, kind, actor, sess, call string, payload any) {
	r.flushHeld(ctx)
	if err := r.deps.Record(context.WithoutCancel(ctx), kind, actor, sess, call, payload); err != nil {
		r.deps.Logger.Error("audit append", "kind", kind, "err", err)
	}
}

// WrapExternal labels content from outside the workspace as data. A closing
// tag inside the content is neutralised so it cannot end the wrapper early.
func WrapExternal(kind, source, content string) string {
	content = neutralise(content)
	return fmt.Sprintf("<external_document kind=%q source=%q>\n%s\n</external_document>", kind, neutralise(source), content)
}

func neutralise(s string) string {
	lower := strings.ToLower(s)
	if !strings.Contains(lower, "external_document") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		j := strings.Index(strings.ToLower(s[i:]), "external_document")
		if j < 0 {
			b.WriteString(s[i:])
			break
		}
		b.WriteString(s[i : i+j])
		// A zero-width joiner breaks the tag name for any parser.
		b.WriteString("external\u200d_document")
		i += j + len("external_document")
	}
	return b.String()
}
