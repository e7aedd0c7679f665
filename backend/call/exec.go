package call

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/policy"
	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// DefaultCommandTimeout applies when the agent gives none.
const DefaultCommandTimeout = 120 * time.Second

type runCommandArgs struct {
	Argv     []string `json:"argv"`
	Cwd      string   `json:"cwd"`
	TimeoutS int      `json:"timeout_s"`
	Stdin    *string  `json:"stdin"`
}

func (r *Runner) runCommandTool() *Tool {
	return &Tool{
		Name:  "run_command",
		Title: "Run a command",
		Description: "Run a program with arguments inside the Gatehouse sandbox (writes only in the workspace; the network only through Gatehouse's proxy, one approved domain at a time). " +
			"argv is an array, not a shell string: to use pipes or redirection, run [\"sh\", \"-c\", \"...\"]. The result carries exit_code, stdout and stderr.",
		Schema:       json.RawMessage(schemaRunCommand),
		OutputSchema: outRunCommand,
		MakePlan:     r.prepareRunCommand,
	}
}

func (r *Runner) prepareRunCommand(ctx context.Context, c *InFlight) (*Plan, error) {
	st := c.State
	var a runCommandArgs
	if err := json.Unmarshal(c.Req.Args, &a); err != nil {
		return nil, errorf("invalid arguments: %v", err)
	}
	for i, arg := range a.Argv {
		if strings.IndexByte(arg, 0) >= 0 {
			return nil, errorf("argv[%d] contains a NUL byte", i)
		}
	}
	if a.Argv[0] == "" {
		return nil, errorf("argv[0] is empty; name the program to run")
	}
	cwd := st.Workspaces[0]
	if a.Cwd != "" {
		c := a.Cwd
		if !filepath.IsAbs(c) {
			c = filepath.Join(st.Workspaces[0], c)
		}
		real, err := filepath.EvalSymlinks(c)
		if err != nil {
			return nil, errorf("cwd %s does not exist", a.Cwd)
		}
		if !insideAny(real, st.Workspaces) {
			return nil, errorf("cwd %s is outside the workspace %s", a.Cwd, strings.Join(st.Workspaces, ", "))
		}
		cwd = real
	}
	bin, err := policy.ResolveBinary(a.Argv[0], r.runPath(), cwd)
	if err != nil {
		return nil, r.notFound(a.Argv[0])
	}
	timeout := DefaultCommandTimeout
	if a.TimeoutS > 0 {
		timeout = time.Duration(a.TimeoutS) * time.Second
	}
	call := policy.Action{Tool: policy.ToolRunCommand, Argv: a.Argv, Binary: bin, Cwd: cwd}
	plan := &Plan{Action: call, MutatesAll: true, Summary: map[string]any{"cwd": cwd, "timeout_s": int(timeout / time.Second)}}
	plan.Run = func(ctx context.Context, c *InFlight) (Output, error) {
		return r.execute(ctx, c, a, timeout)
	}
	return plan, nil
}

func insideAny(p string, roots []string) bool {
	for _, root := range roots {
		if p == root || strings.HasPrefix(p, root+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

func (r *Runner) execute(ctx context.Context, c *InFlight, a runCommandArgs, timeout time.Duration) (Output, error) {
	call := c.plan.Action
	sb, err := r.sandboxSession(ctx, c.State)
	if err != nil {
		return Output{}, err
	}
	end, err := r.beginRun(ctx, c)
	if err != nil {
		return Output{}, err
	}
	defer end()
	env := r.runEnv(c.State)
	if r.deps.EnvFor != nil {
		for k, v := range r.deps.EnvFor(call.Binary) {
			env = append(env, k+"="+v)
		}
	}
	limits := sandbox.DefaultLimits()
	limits.Wall = timeout
	network, release := r.runNetwork(ctx, c)
	defer release()
	spec := sandbox.Spec{Argv: a.Argv, Dir: call.Cwd, Env: env, Hidden: r.deps.Hidden, Network: network, Limits: limits,
		Stdout: c.Req.Stdout, Stderr: c.Req.Stderr, ReadOnlyWorkspaces: c.readOnly}
	if a.Stdin != nil {
		spec.Stdin = strings.NewReader(*a.Stdin)
	}
	runCtx := ctx
	if sr := c.stage; sr != nil {
		spec.Stage = &sandbox.Stage{Dir: sr.dir, PassThrough: sr.passThrough}
		var stop context.CancelCauseFunc
		runCtx, stop = context.WithCancelCause(ctx)
		defer stop(nil)
		defer watchBudget(runCtx, sr, r.stageBudget(), stop)()
	}
	r.record(ctx, c, "exec.started", "system", map[string]any{"argv": redactAll(r.redact, a.Argv), "cwd": call.Cwd, "backend": r.deps.Sandbox.Name(), "staged": c.stage != nil})
	res, err := sb.Run(runCtx, spec)
	if full, ok := context.Cause(runCtx).(errStageFull); ok && ctx.Err() == nil {
		// The budget stopped it, not the agent or the person.
		c.stageFull, err = &full, nil
		res.Killed, res.KillReason = true, killStageFull
	}
	if c.stage != nil && errors.Is(err, sandbox.ErrCannotStage) {
		return Output{}, errNotStaged
	}
	if err != nil {
		return Output{}, err
	}
	fin := map[string]any{
		"exit_code": res.ExitCode, "signal": res.Signal, "duration_ms": res.Duration.Milliseconds(),
		"stdout_bytes": len(res.Stdout), "stderr_bytes": len(res.Stderr), "killed": res.Killed, "kill_reason": string(res.KillReason),
		"backend": res.Backend,
	}
	if len(res.Violations) > 0 {
		fin["violations"] = res.Violations
	}
	r.record(ctx, c, "exec.finished", "system", fin)
	return withNotes(commandOutput(res, r.redact), runNotes(res, r.cacheDir())), nil
}

// streamKeep is how much of each stream a command's result carries: its
// head and tail, where programs print what matters (the failing test, the
// summary), with the middle cut.
const streamKeep = 96 << 10

// commandOutput is run_command's result: the whole of it in the structured
// part, and the same rendered as text.
func commandOutput(res sandbox.Result, redact func(string) string) Output {
	stdout, outCut := headTail(redact(string(res.Stdout)), streamKeep)
	stderr, errCut := headTail(redact(string(res.Stderr)), streamKeep)
	var b strings.Builder
	switch {
	case res.Killed:
		fmt.Fprintf(&b, "killed (%s) after %s\n", res.KillReason, res.Duration.Round(time.Millisecond))
	case res.Signal != "":
		fmt.Fprintf(&b, "terminated by signal %s\n", res.Signal)
	default:
		fmt.Fprintf(&b, "exit code %d\n", res.ExitCode)
	}
	if stdout != "" {
		fmt.Fprintf(&b, "--- stdout ---\n%s", stdout)
		if !strings.HasSuffix(stdout, "\n") {
			b.WriteByte('\n')
		}
	}
	if stderr != "" {
		fmt.Fprintf(&b, "--- stderr ---\n%s", stderr)
	}
	return Output{
		Text:    b.String(),
		IsError: res.ExitCode != 0 || res.Killed,
		Structured: CommandResult{
			ExitCode: res.ExitCode, Signal: res.Signal, Killed: res.Killed, KillReason: string(res.KillReason),
			Stdout: stdout, Stderr: stderr,
			StdoutTruncated: res.StdoutTruncated || outCut, StderrTruncated: res.StderrTruncated || errCut,
			StdoutBytes: len(res.Stdout), StderrBytes: len(res.Stderr),
			DurationMS: res.Duration.Milliseconds(),
		}.structured(),
		OutputBytes: int64(len(res.Stdout) + len(res.Stderr)),
		// The sandbox reports wall time; it stands in for CPU time here.
		CPU: res.Duration,
	}
}

// headTail keeps the first and last n/2 bytes of s (on UTF-8 boundaries)
// and says how much it left out between them.
func headTail(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	h, t := n/2, len(s)-n/2
	for h > 0 && (s[h]&0xC0) == 0x80 {
		h--
	}
	for t < len(s) && (s[t]&0xC0) == 0x80 {
		t++
	}
	return s[:h] + fmt.Sprintf("\n[gatehouse: %d bytes left out here]\n", t-h) + s[t:], true
}
