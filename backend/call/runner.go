package call

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sync/atomic"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/gatehouse-dev/gatehouse/backend/agentusage"
	"github.com/gatehouse-dev/gatehouse/backend/approval"
	"github.com/gatehouse-dev/gatehouse/backend/call/effect"
	"github.com/gatehouse-dev/gatehouse/backend/policy"
	"github.com/gatehouse-dev/gatehouse/backend/rmtree"
	"github.com/gatehouse-dev/gatehouse/backend/session"
	"github.com/gatehouse-dev/gatehouse/backend/snapshot"
	"github.com/gatehouse-dev/gatehouse/backend/workspace"
	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// MaxArgsBytes bounds a call's arguments (the HTTP gate caps the body too).
const MaxArgsBytes = 10 << 20

// Deps is what the runner needs from the daemon.
type Deps struct {
	Sessions  *session.Manager
	Approvals *approval.Broker
	Policy    *PolicyHolder
	Audit     Audit
	// Redact removes secrets from text before it leaves the daemon.
	Redact Redactor
	// EnvFor returns configured secrets to inject for a binary.
	EnvFor  func(binary string) map[string]string
	Sandbox sandbox.Backend
	// Egress gives commands the network through the proxy (network.go).
	Egress Egress
	// Snapshots checkpoints the workspace around mutating calls; nil runs
	// calls uncheckpointed (and says so in the audit log).
	Snapshots *snapshot.Store
	// Hidden are host paths never visible in a sandbox (the data dir).
	Hidden []string
	// RunEnv gives commands the person's toolchains and a build cache;
	// nil runs them with the system PATH only (runenv.go).
	RunEnv *RunEnv
	Logger *slog.Logger

	// ExposeSecrets are the workspace secrets every session's commands
	// may read (sandbox.SessionSpec.ExposeSecrets).
	ExposeSecrets []string
	// StageDir holds staged runs' layers and apply journals (in the data
	// dir); "" runs every command checked instead of staged (staged.go).
	StageDir string
	// KeepReadOnly keeps "always" on a card proposing to show a hidden
	// path (widen.go); nil offers once and session only.
	KeepReadOnly ReadOnlyKeeper
	// Usage reads an agent run's own token counts ("claude:ID"); nil
	// leaves token budgets unchecked.
	Usage func(run string) agentusage.Usage
}

// Runner executes tool calls.
type Runner struct {
	deps   Deps
	tools  map[string]*Tool
	order  []string
	seq    atomic.Int64
	health checkpointHealth
	// shownAlways are paths the person showed every sandbox (widen.go).
	shownAlways shownPaths
	// stallApply, when set, stops applies after that many steps (a fault
	// for tests; see StallApplyAfter).
	stallApply atomic.Int64
	// discards removes staged runs' layers after their answers (staged.go).
	discards *rmtree.Later
}

// Tool is one MCP tool.
type Tool struct {
	Name        string
	Title       string
	Description string
	Schema      json.RawMessage
	// OutputSchema describes Output.Structured (see outschemas.go).
	OutputSchema json.RawMessage
	ReadOnly     bool
	// LocalRead tools only read the workspace: no effect happens before
	// the result, so only the result's audit row needs to wait.
	LocalRead bool
	resolved  *jsonschema.Resolved
	// MakePlan turns validated arguments into a policy call and the work.
	MakePlan func(ctx context.Context, c *InFlight) (*Plan, error)
}

// Plan is a validated call, ready for policy.
type Plan struct {
	Action policy.Action
	// Card fields shown on an approval.
	Diff     string
	Question string
	Summary  map[string]any
	// Mutates lists the workspace paths a file tool will change (for its
	// checkpoint); MutatesAll (run_command) checkpoints the whole workspace.
	Mutates    []workspace.Path
	MutatesAll bool
	Run        func(ctx context.Context, c *InFlight) (Output, error)
	// Refused is why the call cannot work whatever policy says (an agent's
	// own write its sandbox would refuse, or one that would put a
	// redaction marker over a secret): the gate records the call and
	// refuses it with this sentence before policy or the person is asked.
	Refused string
}

// New builds a runner with no tools; Register adds them (package
// call/tools has the built-in ones, which need the runner to run).
func New(deps Deps) *Runner {
	if deps.Logger == nil {
		deps.Logger = slog.New(slog.DiscardHandler)
	}
	r := &Runner{deps: deps, tools: map[string]*Tool{}}
	if deps.StageDir != "" {
		r.discards = rmtree.NewLater(filepath.Join(deps.StageDir, discardedDir))
	}
	return r
}

// Register adds tools, in the order tools/list shows them. It is called
// before the first call; a schema that does not resolve is refused.
func (r *Runner) Register(tools ...*Tool) error {
	for _, t := range tools {
		if _, dup := r.tools[t.Name]; dup {
			return fmt.Errorf("tool %s is registered twice", t.Name)
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(t.Schema, &s); err != nil {
			return fmt.Errorf("tool %s schema: %w", t.Name, err)
		}
		res, err := s.Resolve(nil)
		if err != nil {
			return fmt.Errorf("tool %s schema: %w", t.Name, err)
		}
		t.resolved = res
		r.tools[t.Name] = t
		r.order = append(r.order, t.Name)
	}
	return nil
}

// Tools lists the tools in registration order.
func (r *Runner) Tools() []*Tool {
	out := make([]*Tool, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.tools[n])
	}
	return out
}

// sandboxed: commands run in an enforced sandbox, which is what lets auto
// mode run them without a card.
func (r *Runner) sandboxed() bool {
	return r.deps.Sandbox != nil && r.deps.Sandbox.Name() != "none"
}

// Tool is the tool named name, or nil.
func (r *Runner) Tool(name string) *Tool { return r.tools[name] }

// Call runs one tool call through the whole gate. ctx is the request's
// context (an MCP request, a hook's exec); it is additionally cancelled when
// the session ends or is killed. A panic anywhere in the call becomes a
// tool error with an audit row: the agent gets an answer, the daemon runs on.
func (r *Runner) Call(ctx context.Context, req Request) (res Result) {
	ctx, c, done := r.begin(ctx, req)
	defer done()
	defer r.recoverInto(ctx, c, &res)
	if req.Continues == nil {
		if res, ok := r.gate(ctx, c); !ok {
			return res
		}
	} else if res, ok := r.regate(ctx, c); !ok {
		return res
	}
	return r.run(ctx, c)
}

// Decide takes a call through the gate without running it: the audit row,
// pause and kill, budgets, validation, policy and, when policy asks, the
// person. An agent's own tool runs itself afterwards (the hook's call), or
// comes back with the clearance (a shell command rewritten to run in the
// sandbox): see Clearance. Only an allowed call gets a clearance.
func (r *Runner) Decide(ctx context.Context, req Request) (cl *Clearance, res Result) {
	ctx, c, done := r.begin(ctx, req)
	defer done()
	defer r.recoverInto(ctx, c, &res)
	if res, ok := r.gate(ctx, c); !ok {
		return nil, res
	}
	var pre string
	if req.RunsNatively {
		var err error
		if pre, err = r.checkpoint(ctx, c, snapshot.Pre); err != nil {
			return nil, r.fail(ctx, c, "tool.refused", toolErrorf(err, "Gatehouse could not checkpoint the workspace before this call, so it blocked it: %s", snapshot.Problem(err)))
		}
	}
	cleared := map[string]any{"tool": req.Tool, "native": req.Native}
	if !req.RunsNatively && c.plan.Run == nil {
		// Nothing comes back: the agent's own tool runs it, and this is
		// where the call ends for Gatehouse. An edit comes back to Finish,
		// a command Gatehouse runs (its plan has a Run) to Clearance.Run.
		cleared["outcome"] = r.ended(c, session.End{Outcome: session.OutcomeCleared})
	}
	r.record(ctx, c, "tool.cleared", "system", cleared)
	return &Clearance{CallID: c.ID, Plan: c.plan, runner: r, asked: c.asked.Load(), pre: pre, readOnly: c.readOnly}, Result{CallID: c.ID}
}

// finishNative records the end of a call its agent ran itself after
// Decide (Clearance.Finish).
func (r *Runner) finishNative(ctx context.Context, req Request, out Output) (res Result) {
	ctx, c, done := r.begin(ctx, req)
	defer done()
	defer r.recoverInto(ctx, c, &res)
	c.plan = req.Continues.Plan
	post, cerr := r.checkpoint(context.WithoutCancel(ctx), c, snapshot.Post)
	if cerr != nil {
		r.deps.Logger.Warn("post-call checkpoint", "call", c.ID, "err", cerr)
		out.Warning = "the checkpoint after this call failed (" + snapshot.Problem(cerr) + "), so it cannot be undone from Gatehouse"
	}
	if pre := req.Continues.pre; pre != "" && post != "" {
		// What the agent's own tool changed, so its outcome says whether
		// it applied anything.
		changes, err := r.deps.Snapshots.ChangeList(context.WithoutCancel(ctx), pre, post)
		if err != nil {
			r.deps.Logger.Warn("read what a native edit changed", "call", c.ID, "err", err)
		} else {
			e := effect.Result{Outcome: effect.OutcomeUnchanged}
			e.Created, e.Modified, e.Deleted = effect.FromCheckpoints(c.State.Workspaces, nil, changes).Counts()
			if e.Created+e.Modified+e.Deleted > 0 {
				e.Outcome = effect.OutcomeApplied
			}
			out = withEffect(out, e)
		}
	}
	return r.finish(ctx, c, out)
}

// begin makes the call value; the returned context also ends with the
// session, and done releases it.
func (r *Runner) begin(ctx context.Context, req Request) (context.Context, *InFlight, func()) {
	st := req.State
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(st.Live.Context(), func() { cancel(context.Cause(st.Live.Context())) })
	st.Touch()
	c := &InFlight{ID: r.newCallID(), State: st, Req: req, tool: r.tools[req.Tool]}
	if req.Continues != nil {
		c.ID = req.Continues.CallID
		c.asked.Store(req.Continues.asked)
		c.readOnly = req.Continues.readOnly
	}
	return ctx, c, func() { stop(); cancel(nil) }
}

// recoverInto turns a panic in the call into a tool error with its row.
func (r *Runner) recoverInto(ctx context.Context, c *InFlight, res *Result) {
	if v := recover(); v != nil {
		pe := &panicError{value: v, stack: debug.Stack()}
		r.deps.Logger.Error("tool call panicked", "call", c.ID, "tool", c.Req.Tool, "panic", v, "stack", string(pe.stack))
		*res = r.fail(ctx, c, "tool.error", pe)
	}
}

// gate is everything before a call runs: its audit row, pause and kill,
// budgets, validation, the plan, policy and the person. ok is false when
// the call stops here, with res its answer.
func (r *Runner) gate(ctx context.Context, c *InFlight) (res Result, ok bool) {
	req := c.Req
	r.deps.Sessions.Count(c.Session(), session.Counters{Calls: 1})
	callEvent := map[string]any{"tool": req.Tool, "args": r.argsForAudit(req.Args)}
	if req.Via != ViaMCP && req.Via != "" {
		callEvent["via"] = string(req.Via)
		callEvent["native"] = req.Native
	}
	if c.tool != nil && c.tool.LocalRead && req.Via != ViaHook {
		// Nothing leaves the daemon before the result is durable, and that
		// wait covers this row too (one ordered writer); see readlog.go.
		c.held = &callLog{expect: r.deps.Audit.Expect()}
		c.held.hold("tool.call", c.actor(), callEvent)
	} else if err := r.deps.Audit.RecordWritten(ctx, Row{Kind: "tool.call", Actor: c.actor(), Session: c.Session(), Call: c.ID, Payload: callEvent}); err != nil {
		// No audit row, no call.
		r.deps.Logger.Error("audit tool.call", "call", c.ID, "err", err)
		r.ended(c, session.End{Outcome: session.OutcomeRefused})
		return failure(c.ID, "Gatehouse could not record this call in its audit log, so it did not run it: "+auditProblem(err)), false
	}
	if err := r.admit(ctx, c); err != nil {
		return r.fail(ctx, c, "tool.refused", err), false
	}
	if c.tool == nil {
		return r.fail(ctx, c, "tool.invalid", Errorf("unknown tool %q; call tools/list to see what exists", req.Tool)), false
	}
	if req.Plan == nil {
		if err := c.tool.Validate(req.Args); err != nil {
			return r.fail(ctx, c, "tool.invalid", err), false
		}
	}
	if v := map[string]any{"tool": req.Tool}; !c.held.hold("tool.validated", "system", v) {
		r.record(ctx, c, "tool.validated", "system", v)
	}
	if err := r.makePlan(ctx, c); err != nil {
		return r.fail(ctx, c, "tool.invalid", err), false
	}
	if c.plan.Refused != "" {
		return r.fail(ctx, c, "tool.refused", Errorf("%s", c.plan.Refused)), false
	}
	if err := r.authorize(ctx, c); err != nil {
		return r.fail(ctx, c, "tool.denied", err), false
	}
	return Result{}, true
}

// admit refuses a call the session may not make now, at the gate and
// again at regate: a paused or killed session, a spent budget, a
// workspace that is gone.
func (r *Runner) admit(ctx context.Context, c *InFlight) error {
	if err := r.deps.Sessions.Admit(ctx, c.Session()); err != nil {
		return err
	}
	if err := r.checkLimits(ctx, c); err != nil {
		return err
	}
	return workspacesExist(c.State.Workspaces)
}

// regate is the gate again for a call that comes back with its clearance
// (the hook's shell command, now through `gatehouse exec`): the decision
// stands, but pause, kill and budgets apply now.
func (r *Runner) regate(ctx context.Context, c *InFlight) (res Result, ok bool) {
	if c.tool == nil {
		return r.fail(ctx, c, "tool.invalid", Errorf("unknown tool %q", c.Req.Tool)), false
	}
	if err := r.admit(ctx, c); err != nil {
		return r.fail(ctx, c, "tool.refused", err), false
	}
	if err := r.makePlan(ctx, c); err != nil {
		return r.fail(ctx, c, "tool.invalid", err), false
	}
	return Result{}, true
}

// makePlan makes the call's plan: the tool's own, or the one the caller
// built for an agent's native tool.
func (r *Runner) makePlan(ctx context.Context, c *InFlight) error {
	if c.Req.Plan != nil {
		c.plan = c.Req.Plan
		return nil
	}
	plan, err := c.tool.MakePlan(ctx, c)
	if err != nil {
		return err
	}
	c.plan = plan
	return nil
}

// run is everything from the first checkpoint to the answer: staged
// where the sandbox can (staged.go), checked against its checkpoints
// where it cannot (checked.go).
func (r *Runner) run(ctx context.Context, c *InFlight) Result {
	for {
		res := r.runOnce(ctx, c)
		if !c.again {
			return res
		}
		// The person showed the command a path it needed (widen.go).
		c.again, c.stage, c.stageFull = false, nil, nil
	}
}

// runOnce runs the call's command once, staged or checked.
func (r *Runner) runOnce(ctx context.Context, c *InFlight) Result {
	if r.canStage(c) {
		sr, err := r.newStagedRun(c)
		if err == nil {
			return r.runStaged(ctx, c, sr)
		}
		r.deps.Logger.Warn("cannot stage the run; running it checked instead", "call", c.ID, "err", err)
	}
	return r.runChecked(ctx, c)
}

// fail records why a call did not produce a result and answers the agent
// with one plain sentence.
func (r *Runner) fail(ctx context.Context, c *InFlight, kind string, err error) Result {
	msg := r.redact(r.forAgent(c, err))
	end := r.ended(c, failEnd(c, kind, err))
	r.recordSync(ctx, c, kind, "system", map[string]any{"tool": c.Req.Tool, "error": msg, "outcome": end})
	return failure(c.ID, msg)
}

// Validate checks a call's arguments against the tool's input schema
// (registered tools only); its error is for the agent.
func (t *Tool) Validate(raw json.RawMessage) error {
	if len(raw) > MaxArgsBytes {
		return Errorf("arguments are larger than 10 MiB")
	}
	if len(raw) == 0 {
		raw = json.RawMessage(`{}`)
	}
	var inst any
	if err := json.Unmarshal(raw, &inst); err != nil {
		return Errorf("arguments are not valid JSON: %v", err)
	}
	if err := t.resolved.Validate(inst); err != nil {
		return Errorf("%s", schemaSentence(t.Name, slices.Collect(maps.Keys(t.resolved.Schema().Properties)), err))
	}
	return nil
}
