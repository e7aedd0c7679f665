// Package hookserver answers the hooks agents run around their own tools
// (`gatehouse hook`), and runs the shell commands those hooks rewrite
// (`gatehouse exec`). Both go through the same pipeline as MCP calls: the
// run's session, policy, the same cards, budgets, pause and kill, the
// sandbox and the audit. A shell command is cleared at the hook, then runs
// in the session's sandbox under the same call id when the agent runs the
// rewritten line; an edit is checkpointed before and recorded after.
package hookserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/gatehouse-dev/gatehouse/backend/call"
	"github.com/gatehouse-dev/gatehouse/backend/call/effect"
	"github.com/gatehouse-dev/gatehouse/backend/httpgate"
	"github.com/gatehouse-dev/gatehouse/backend/policy"
	"github.com/gatehouse-dev/gatehouse/backend/secretholders"
	"github.com/gatehouse-dev/gatehouse/backend/session"
	"github.com/gatehouse-dev/gatehouse/backend/transport/hookwire"
)

// Config wires the server to the daemon.
type Config struct {
	Runner   *call.Runner
	Runs     *session.Runs
	Sessions *session.Manager
	// Redact removes secrets (private keys, token shapes, configured
	// values) from what an agent's own read hands its model.
	Redact func(string) string
	// Redacted is where redacted copies of files for agents' own reads
	// are kept (readable by the agent, not in any workspace).
	Redacted string
	Logger   *slog.Logger
	// AgentSession learns, from a hook, the agent's own session id for a
	// run named otherwise (agentusage finds the agent's token counts by
	// it); nil ignores it.
	AgentSession func(run, agentSession string)
}

// Server answers hooks and runs rewritten commands.
type Server struct {
	cfg       Config
	tickets   *expiring[*ticket]
	inputs    inputs
	pending   *expiring[pendingEdit]
	ownTools  map[string]bool
	execLimit time.Duration
	// holders knows which files' content holds a secret, for the agent's
	// own searches (nil without a redactor).
	holders *secretholders.Index
}

// New builds the server.
func New(cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{cfg: cfg, tickets: newExpiring[*ticket](ticketTTL), pending: newExpiring[pendingEdit](pendingTTL),
		ownTools: map[string]bool{}, execLimit: defaultShellTimeout}
	for _, t := range cfg.Runner.Tools() {
		s.ownTools[t.Name] = true
	}
	if cfg.Redact != nil {
		s.holders = secretholders.New(cfg.Redact)
	}
	return s
}

// defaultShellTimeout bounds a native shell command that names no timeout;
// the agents' own limits are shorter.
const defaultShellTimeout = 10 * time.Minute

// Routes are the server's handlers, to mount behind the agent gate.
func (s *Server) Routes() map[string]http.Handler {
	return map[string]http.Handler{
		"POST " + hookwire.HookPath:      http.HandlerFunc(s.serveHook),
		"POST " + hookwire.ExecPath:      http.HandlerFunc(s.serveExec),
		"POST " + hookwire.ExecInputPath: http.HandlerFunc(s.serveExecInput),
	}
}

// maxHookBody bounds a hook request: the agent's input and the envelope.
const maxHookBody = hookwire.MaxStdin + 64<<10

func (s *Server) serveHook(w http.ResponseWriter, r *http.Request) {
	var req hookwire.HookRequest
	if err := decode(r, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, hookwire.Answer{Verdict: hookwire.Deny, Reason: err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, s.answer(r.Context(), identity(r), req))
}

func (s *Server) serveExec(w http.ResponseWriter, r *http.Request) {
	var req hookwire.ExecRequest
	if err := decode(r, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, hookwire.ExecResult{ExitCode: -1, Error: err.Error()})
		return
	}
	by := identity(r)
	t, st, refused, code := s.cleared(by, req)
	if refused != nil {
		writeJSON(w, code, refused)
		return
	}
	if !req.Stream {
		writeJSON(w, http.StatusOK, s.exec(r.Context(), t, st, execIO{}))
		return
	}
	f := newFrames(w)
	defer f.stop()
	stdout, stderr := &frameStream{f: f}, &frameStream{f: f, stderr: true}
	through := execIO{stdout: stdout, stderr: stderr}
	if req.Input {
		key, stdin, end := s.inputs.open(by.token)
		defer end()
		f.input(key)
		through.stdin = stdin
	}
	res := s.exec(r.Context(), t, st, through)
	if err := errors.Join(stdout.flush(), stderr.flush()); err != nil {
		s.cfg.Logger.Debug("stream a command's output", "err", err)
		return
	}
	if !f.begun() && res.Error != "" {
		// Refused before it ran (paused, killed, its session gone): the
		// result alone, not a stream.
		writeJSON(w, http.StatusOK, res)
		return
	}
	// What went as it came is not sent again.
	if stdout.wrote {
		res.Stdout = ""
	}
	if stderr.wrote {
		res.Stderr = ""
	}
	if err := f.result(res); err != nil {
		s.cfg.Logger.Debug("stream a command's result", "err", err)
	}
}

// who is the agent token a request came with, and the confined run
// whose listener it came through ("" for none).
type who struct{ token, name, run string }

func identity(r *http.Request) who {
	if ti := auth.TokenInfoFromContext(r.Context()); ti != nil {
		n, _ := ti.Extra["name"].(string)
		return who{token: ti.UserID, name: n, run: r.Header.Get(httpgate.ConfinedRunHeader)}
	}
	return who{}
}

func decode(r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(nil, r.Body, maxHookBody))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("the hook request is not valid JSON: %v", err)
	}
	return nil
}

func writeJSON(w http.ResponseWriter, code int, v any) { httpgate.JSON(w, code, v) }

func deny(format string, a ...any) hookwire.Answer {
	return hookwire.Answer{Verdict: hookwire.Deny, Reason: fmt.Sprintf(format, a...)}
}

var allow = hookwire.Answer{Verdict: hookwire.Allow}

// answer decides one hook event.
func (s *Server) answer(ctx context.Context, by who, req hookwire.HookRequest) hookwire.Answer {
	ev := req.Event
	if _, err := hookwire.ParseAgent(string(ev.Agent)); err != nil {
		return deny("%v", err)
	}
	key, err := session.ParseRunKey(string(ev.Agent) + ":" + ev.SessionID)
	if by.run != "" {
		// From inside a confined run: the run is the session, whatever
		// the agent calls its own.
		key, err = session.ConfinedRun(by.run), nil
	}
	if err != nil {
		if ev.Kind == hookwire.PreTool {
			return deny("Gatehouse blocked this call: the hook input has no usable session id (%v), so Gatehouse cannot tell which run asks.", err)
		}
		return hookwire.Answer{Verdict: hookwire.None}
	}
	if ev.AgentSessionID != "" && s.cfg.AgentSession != nil && by.run == "" {
		s.cfg.AgentSession(key.String(), ev.AgentSessionID)
	}
	start := session.RunStart{Token: by.token, Client: by.name, ClientName: ev.Agent.Title(), Transport: "hook", Cwd: ev.Cwd}
	switch ev.Kind {
	case hookwire.PreTool:
		return s.pre(ctx, key, start, ev, req.Exec)
	case hookwire.PostTool:
		s.post(ctx, key, ev)
	case hookwire.Prompt:
		s.prompt(ctx, key, start, ev)
	case hookwire.SessionEnd:
		if by.run == "" {
			// A confined run ends with its process, not with one of the
			// agent's sessions inside it.
			s.cfg.Runs.End(ctx, key, "the agent's run ended")
		}
	}
	return hookwire.Answer{Verdict: hookwire.None}
}

// pre decides an agent's tool call before it runs.
func (s *Server) pre(ctx context.Context, key session.RunKey, start session.RunStart, ev hookwire.Event, exe []string) hookwire.Answer {
	n, err := classify(ev, s.ownTools)
	if err != nil {
		return deny("Gatehouse blocked %s: %v.", ev.Tool, err)
	}
	switch n.cls {
	case classGatehouse, classInert:
		// Gatehouse's own tools are gated when their MCP call arrives;
		// inert tools touch nothing the sandbox bounds.
		return allow
	case classUnknown:
		return deny("Gatehouse does not know %s's tool %q, so it blocked it; the person can update Gatehouse to cover it.", ev.Agent.Title(), ev.Tool)
	}
	st, err := s.cfg.Runs.Use(ctx, key, start)
	if err != nil {
		return deny("Gatehouse blocked this call: %v.", plain(err))
	}
	req := call.Request{State: st, Via: call.ViaHook, Native: ev.Agent.Title() + " " + ev.Tool, Args: ev.Input}
	switch n.cls {
	case classShell:
		if n.rewritable {
			return s.preShell(ctx, req, key, start.Token, ev, n, exe)
		}
		words, ok := simpleWords(n.command)
		if !ok {
			words = []string{"bash", "-c", n.command}
		}
		req.Tool = policy.ToolRunCommand
		req.Plan = &call.Plan{Action: policy.Action{Tool: policy.ToolRunCommand, Argv: words, Binary: words[0], Cwd: ev.Cwd, Unconfined: true},
			Summary: map[string]any{"cwd": ev.Cwd, "runs": "outside the sandbox"}}
	case classEdit:
		plan, err := pathsPlan(st, policy.ToolWriteFile, n.paths, true)
		if err != nil {
			return deny("Gatehouse blocked this edit: %v.", err)
		}
		// Refused at the gate, after the call's audit row and before any
		// card: an edit that cannot work spares the person the question.
		plan.Refused = s.markerEdit(ev.Input, plan.Action.Paths)
		if plan.Refused == "" {
			plan.Refused = confinedNewEntry(st, plan.Action.Paths, s.cfg.Runner.Exposure())
		}
		req.Tool, req.Plan, req.RunsNatively = policy.ToolWriteFile, plan, true
		cl, res := s.cfg.Runner.Decide(ctx, req)
		if cl == nil {
			return deny("%s", res.Text)
		}
		s.pending.put(editKey(key, ev.ToolUseID, ev.Tool, ev.Input), pendingEdit{cl: cl, native: req.Native})
		return allow
	case classRead:
		plan, err := pathsPlan(st, policy.ToolReadFile, n.paths, false)
		if err != nil {
			return deny("Gatehouse blocked this read: %v.", err)
		}
		req.Tool, req.Plan = policy.ToolReadFile, plan
		if cl, res := s.cfg.Runner.Decide(ctx, req); cl == nil {
			return deny("%s", res.Text)
		}
		if n.searchPathKey != "" || n.excludeKey != "" {
			return s.searchAnswer(ctx, ev, n, st, key)
		}
		return s.readAnswer(ev, n, st, key)
	case classFetch:
		if n.url == "" {
			return deny("Gatehouse blocked this fetch: it names no http or https URL.")
		}
		req.Tool, req.Plan = policy.ToolFetchURL, &call.Plan{Action: policy.Action{Tool: policy.ToolFetchURL, URL: n.url}}
	case classExternal:
		req.Tool = policy.ToolRunCommand
		req.Plan = &call.Plan{Action: policy.Action{Tool: policy.ToolRunCommand, Argv: []string{"mcp:" + n.name}, Binary: "mcp:" + n.name,
			Cwd: st.Workspaces[0], Unconfined: true}, Summary: map[string]any{"mcp_tool": n.name}}
	}
	if cl, res := s.cfg.Runner.Decide(ctx, req); cl == nil {
		return deny("%s", res.Text)
	}
	return allow
}

// maxArgBytes is the most one argument of a program can hold on Linux
// (MAX_ARG_STRLEN): the agent's own shell could not run a longer command
// either.
const maxArgBytes = 128 << 10

// preShell clears a shell command and rewrites it to run through
// `gatehouse exec`, in the session's sandbox.
func (s *Server) preShell(ctx context.Context, req call.Request, key session.RunKey, token string, ev hookwire.Event, n native, exe []string) hookwire.Answer {
	if err := checkExe(exe); err != nil {
		return deny("Gatehouse blocked this command: %v.", err)
	}
	argv, simple := simpleWords(n.command)
	if !simple {
		argv = []string{"bash", "-c", n.command}
	}
	for _, w := range argv {
		if len(w) > maxArgBytes {
			return deny("This command is %d bytes long, more than the %d one command line can hold, so it cannot run as it is; write the long text to a file with your file tool and have a short command read it.", len(w), maxArgBytes)
		}
	}
	timeout := n.timeout
	if timeout <= 0 {
		timeout = s.execLimit
	}
	cwd := ev.Cwd
	if n.dir != "" {
		cwd = n.dir
	}
	args, _ := json.Marshal(map[string]any{"argv": argv, "cwd": cwd, "timeout_s": max(1, int(timeout/time.Second))})
	req.Tool, req.Args = policy.ToolRunCommand, args
	cl, res := s.cfg.Runner.Decide(ctx, req)
	if cl == nil {
		return deny("%s", res.Text)
	}
	id := newTicketID()
	// Claude Code's shell keeps its directory across commands: a `cd` in
	// one moves the next, so the command's moves are brought back. A
	// program run without a shell cannot move (and the line stays one
	// command, which a shell runs without a fork of its own).
	keepsCwd := ev.Agent == hookwire.Claude && !simple
	s.tickets.put(id, &ticket{run: key, token: token, command: n.command, args: args, native: req.Native, cl: cl, keepsCwd: keepsCwd})
	line, err := execLine(exe, ev.Agent, id, n.command, keepsCwd)
	if err != nil {
		return deny("Gatehouse blocked this command: %v.", err)
	}
	input, err := replaceMember(ev.Input, n.commandKey, line)
	if err != nil {
		return deny("Gatehouse blocked this command: %v.", err)
	}
	return hookwire.Answer{Verdict: hookwire.Allow, Reason: "Gatehouse runs this command in its sandbox.", Input: input}
}

// checkExe accepts an absolute gatehouse binary with its global flags.
func checkExe(exe []string) error {
	if len(exe) == 0 || !filepath.IsAbs(exe[0]) {
		return errors.New("the hook did not say where the gatehouse binary is")
	}
	for _, e := range exe {
		if strings.IndexByte(e, 0) >= 0 {
			return errNUL
		}
	}
	return nil
}

// replaceMember copies the tool input with one member replaced, keeping
// every other field the agent sent. A command given as an argv list stays
// a list (a shell running the line).
func replaceMember(input json.RawMessage, key, line string) (json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if err := json.Unmarshal(input, &m); err != nil {
		return nil, errNotObject
	}
	var v any = line
	if old := m[key]; len(old) > 0 && old[0] == '[' {
		v = []string{"bash", "-c", line}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	m[key] = b
	return json.Marshal(m)
}

// pathsPlan is the plan of a native read or edit of paths.
func pathsPlan(st *session.State, tool string, paths []string, mutates bool) (*call.Plan, error) {
	plan := &call.Plan{Action: policy.Action{Tool: tool}}
	for _, p := range paths {
		wp, err := st.Roots.ResolveOutside(p)
		if err != nil {
			return nil, err
		}
		plan.Action.Paths = append(plan.Action.Paths, wp.Abs)
		if mutates && wp.Inside {
			plan.Mutates = append(plan.Mutates, wp)
		}
	}
	return plan, nil
}

// post records a native edit once it has run.
func (s *Server) post(ctx context.Context, key session.RunKey, ev hookwire.Event) {
	pe, ok := s.pending.take(editKey(key, ev.ToolUseID, ev.Tool, ev.Input))
	if !ok {
		return
	}
	st, ok := s.cfg.Runs.Find(key)
	if !ok {
		return
	}
	out := call.Output{Text: "ran by the agent's own tool", Structured: map[string]any{"native": true}}
	if ev.Failure != "" {
		// The agent says its tool failed: the call's outcome says so.
		out.Text, out.IsError = "the agent's own tool failed: "+ev.Failure, true
		out.Structured["failure"] = ev.Failure
	}
	pe.cl.Finish(ctx, call.Request{State: st, Tool: policy.ToolWriteFile, Via: call.ViaHook, Native: pe.native}, out)
}

// maxGoal bounds the prompt kept as a session's goal.
const maxGoal = 4 << 10

func (s *Server) prompt(ctx context.Context, key session.RunKey, start session.RunStart, ev hookwire.Event) {
	st, err := s.cfg.Runs.Use(ctx, key, start)
	if err != nil {
		return
	}
	if s.holders != nil && (ev.Agent == hookwire.Claude || ev.Agent == hookwire.Gemini) {
		// Their own search tools ask which files hold a secret; read the
		// project now, while the model thinks, not at the first search.
		for _, ws := range st.Workspaces {
			s.holders.Warm(ws)
		}
	}
	goal := ev.Prompt
	if len(goal) > maxGoal {
		goal = goal[:maxGoal]
	}
	if err := s.cfg.Sessions.SetGoal(ctx, st.Live.ID(), goal); err != nil {
		s.cfg.Logger.Warn("record the session's goal", "err", err)
	}
}

// cleared finds what req may run: its ticket, taken, and its run; or, if
// nothing, the answer that says why and its status.
func (s *Server) cleared(by who, req hookwire.ExecRequest) (*ticket, *session.State, *hookwire.ExecResult, int) {
	refuse := func(code int, msg string) (*ticket, *session.State, *hookwire.ExecResult, int) {
		return nil, nil, &hookwire.ExecResult{ExitCode: -1, Error: msg}, code
	}
	t, ok := s.tickets.take(req.Ticket)
	switch {
	case !ok:
		return refuse(http.StatusForbidden, "Gatehouse has no cleared command for this ticket (it ran already or expired); run the command again through the agent.")
	case t.command != req.Command:
		return refuse(http.StatusForbidden, "This is not the command Gatehouse cleared for this ticket, so it did not run it.")
	}
	st, ok := s.cfg.Runs.Find(t.run)
	if !ok {
		return refuse(http.StatusGone, "The agent's Gatehouse session has ended; run the command again through the agent.")
	}
	if by.token != t.token {
		// Only the agent token that cleared the command may run it.
		return refuse(http.StatusForbidden, "This ticket belongs to another agent.")
	}
	return t, st, nil, http.StatusOK
}

// execIO is a command's input and where its output goes as it comes;
// nil ones are empty input and output kept for the result.
type execIO struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// exec runs a cleared command in its run's sandbox.
func (s *Server) exec(ctx context.Context, t *ticket, st *session.State, through execIO) hookwire.ExecResult {
	res := t.cl.Run(ctx, call.Request{State: st, Tool: policy.ToolRunCommand, Args: t.args, Via: call.ViaHook, Native: t.native,
		Stdin: through.stdin, Stdout: through.stdout, Stderr: through.stderr, KeepsCwd: t.keepsCwd})
	out := execResult(res)
	if claimed := out.Cwd; claimed != "" {
		if out.Cwd = landedDir(st.Workspaces, claimed); out.Cwd == "" {
			// Without Gatehouse the agent's shell would be there now.
			out.Notes = append(out.Notes, fmt.Sprintf("the command's shell ended in %q, which is not a directory of this session's projects now, so your shell stays where it was", claimed))
		}
	}
	return out
}

func execResult(res call.Result) hookwire.ExecResult {
	cr, err := call.CommandResultOf(res)
	switch {
	case err != nil:
		return hookwire.ExecResult{ExitCode: -1, Error: "Gatehouse could not read this command's result; see the daemon log."}
	case cr.Error != "":
		return hookwire.ExecResult{ExitCode: -1, Error: cr.Error}
	}
	out := hookwire.ExecResult{ExitCode: cr.ExitCode, Signal: cr.Signal, Killed: cr.Killed, KillReason: cr.KillReason,
		Stdout: cr.Stdout, Stderr: cr.Stderr, Warning: cr.Warning, Notes: cr.Notes, Cwd: cr.Cwd}
	if e := cr.Effect; e != nil {
		if e.Note != "" {
			out.Notes = append(out.Notes, e.Note)
		}
		out.ChangesRefused = e.Outcome == effect.OutcomeDiscarded || e.Outcome == effect.OutcomeRolledBack || len(e.KeptOut) > 0
	}
	return out
}

// plain keeps an error to its one sentence.
func plain(err error) string {
	s := err.Error()
	return strings.TrimSuffix(s, ".")
}
