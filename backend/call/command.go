package call

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/call/effect"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/landlock"
)

// Command is a command a tool asks the pipeline to run: the program and
// arguments as the agent gave them (no shell), its input and how long it
// may take. Where it runs and with which binary is the cleared plan's.
type Command struct {
	Argv    []string
	Stdin   *string
	Timeout time.Duration
}

// RunCommand runs cmd in the call's sandbox session: staged or checked as
// the pipeline chose, with the session's toolchains, build cache, network
// and staging budget, streaming to the request's writers. It returns what
// the sandbox saw and the notes the command's own messages do not say (a
// protected path it changed, a full disk).
func (r *Runner) RunCommand(ctx context.Context, c *InFlight, cmd Command) (sandbox.Result, []string, error) {
	call := c.plan.Action
	sb, err := r.sandboxSession(ctx, c.State)
	if err != nil {
		return sandbox.Result{}, nil, err
	}
	end, err := r.beginRun(ctx, c)
	if err != nil {
		return sandbox.Result{}, nil, err
	}
	defer end()
	env := r.runEnv(c.State)
	if r.deps.EnvFor != nil {
		for k, v := range r.deps.EnvFor(call.Binary) {
			env = append(env, k+"="+v)
		}
	}
	limits := sandbox.DefaultLimits()
	limits.Wall = cmd.Timeout
	network, net, release := r.runNetwork(ctx, c)
	defer release()
	stdout, stderr := c.Req.Stdout, c.Req.Stderr
	if stdout == nil && stderr == nil && c.Req.Progress != nil {
		// The client sees no output until the call ends: it is told the
		// latest line instead.
		p := startRunProgress(ctx, c.Req.Progress)
		defer p.end()
		stdout, stderr = p.stream(), p.stream()
	}
	liveOut, liveErr := r.liveOutput(stdout, limits.OutputCap()), r.liveOutput(stderr, limits.OutputCap())
	endDirFile := ""
	if c.Req.KeepsCwd {
		var add string
		if add, endDirFile = reportingEndDir(cmd.Argv, env, c.State.Tmp, c.ID); add != "" {
			env = append(env, add)
		}
	}
	spec := sandbox.Spec{Argv: cmd.Argv, Dir: call.Cwd, Env: env, Hidden: r.deps.Hidden, Network: network, Limits: limits,
		ReadOnly: slices.Concat(c.State.ReadOnly(), r.shownAlways.list(), c.showReadOnly),
		Stdout:   liveOut.writer(), Stderr: liveErr.writer(), ReadOnlyWorkspaces: c.readOnly}
	switch {
	case cmd.Stdin != nil:
		spec.Stdin = strings.NewReader(*cmd.Stdin)
	case c.Req.Stdin != nil:
		spec.Stdin = c.Req.Stdin
	}
	runCtx := ctx
	if sr := c.stage; sr != nil {
		spec.Stage = &sandbox.Stage{Dir: sr.Dir, PassThrough: sr.PassThrough}
		var stop context.CancelCauseFunc
		runCtx, stop = context.WithCancelCause(ctx)
		defer stop(nil)
		defer sr.WatchBudget(runCtx, r.stageBudget(), stop)()
	}
	r.record(ctx, c, "exec.started", "system", map[string]any{"argv": redactAll(r.redact, cmd.Argv), "cwd": call.Cwd, "backend": r.deps.Sandbox.Name(), "staged": c.stage != nil})
	res, err := sb.Run(runCtx, spec)
	if endDirFile != "" {
		c.endDir = readEndDir(endDirFile, call.Cwd)
	}
	if full, ok := context.Cause(runCtx).(effect.ErrFull); ok && ctx.Err() == nil {
		// The budget stopped it, not the agent or the person.
		c.stageFull, err = &full, nil
		res.Killed, res.KillReason = true, effect.KillFull
	}
	if c.stage != nil && errors.Is(err, sandbox.ErrCannotStage) {
		return sandbox.Result{}, nil, effect.ErrNotStaged
	}
	if err != nil {
		return sandbox.Result{}, nil, err
	}
	if err := errors.Join(liveOut.finish(res.Stdout, res.StdoutTruncated), liveErr.finish(res.Stderr, res.StderrTruncated)); err != nil {
		// The transport's reader went away; the result still stands.
		r.deps.Logger.Debug("pass on a command's output as it ran", "err", err)
	}
	outBytes, errBytes := res.Written()
	fin := map[string]any{
		"exit_code": res.ExitCode, "signal": res.Signal, "duration_ms": res.Duration.Milliseconds(),
		"stdout_bytes": outBytes, "stderr_bytes": errBytes, "killed": res.Killed, "kill_reason": string(res.KillReason),
		"backend": res.Backend,
	}
	if len(res.Violations) > 0 {
		fin["violations"] = res.Violations
	}
	r.record(ctx, c, "exec.finished", "system", fin)
	release() // the proxy's last connections are recorded before the notes
	notes := append(runNotes(res, r.cacheDir()), net.notes()...)
	out := newCommandOutput(res.Stderr, res.Stdout)
	notes = append(notes, steeringNotes(out)...)
	outNotes, socks := outputNotes(network.Mode, out)
	notes = append(notes, outNotes...)
	if n := signingNote(res.Stderr); n != "" {
		notes = append(notes, n)
	}
	if res.Backend == landlock.Name {
		notes = append(notes, landlockEntryNotes(out, c.plan.Action.Cwd, c.State.Workspaces, func(ws string) map[string]landlock.Lock { return LandlockLocks(ws, r.Exposure()) })...)
	}
	for _, rf := range boundaryRefusals(out, c.plan.Action.Cwd, c.State.Workspaces, r.home(), r.hiddenFromCommands) {
		if slices.Contains(socks, rf.path) {
			continue // its socket note says more
		}
		notes = append(notes, rf.note)
		if rf.hid && c.proposal == "" && r.mayShow(rf.path) {
			c.proposal = rf.path
		}
	}
	return res, notes, nil
}
