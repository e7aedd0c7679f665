package call

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/gatehouse-dev/gatehouse/backend/call/effect"
	"github.com/gatehouse-dev/gatehouse/backend/session"
)

// Via says how a call reached Gatehouse.
type Via string

const (
	// ViaMCP is a call of one of Gatehouse's own MCP tools.
	ViaMCP Via = "mcp"
	// ViaHook is an agent's own tool (Claude Code's Bash, Codex's shell),
	// which the agent's hook handed to Gatehouse before running it.
	ViaHook Via = "hook"
	// ViaConfined is a confined agent's own connection (`gatehouse run`):
	// the agent process, not one of its tool calls.
	ViaConfined Via = "confined"
)

// Request is what a transport hands the runner: one tool call, as asked.
type Request struct {
	State *session.State
	Tool  string
	Args  json.RawMessage
	Via   Via
	// Native names the agent's own tool a hook call came from ("Bash",
	// "run_shell_command"), so the card can say so.
	Native string
	// Progress, if set, is called while the call waits for the person, so
	// the transport can keep the client's request alive (MCP progress
	// notifications). It must not block.
	Progress func(message string)
	// Stdout and Stderr, if set, receive a command's output as it runs
	// (the agent's own shell, rewritten through `gatehouse exec`).
	Stdout, Stderr io.Writer
	// Stdin, if set, is a command's input as it comes (what is typed on
	// the terminal the agent runs its shell command on); nil is none.
	Stdin io.Reader
	// KeepsCwd: the agent's shell keeps its directory from one command to
	// the next (Claude Code), so a shell command's run reports where it
	// ended (EndDir).
	KeepsCwd bool
	// Continues, if set, is the clearance Decide gave this call: it runs
	// under that call's id, and policy and the person are not asked again.
	Continues *Clearance
	// Plan, if set, is what an agent's native tool does, built by the
	// caller; the tool's own argument checks and MakePlan are skipped.
	Plan *Plan
	// RunsNatively: after Decide the agent's own tool makes the change, so
	// Decide takes the checkpoint before it (Finish takes the one after).
	RunsNatively bool
}

// Clearance is Decide's allow for one call: the decision as a value that
// finishes the call, whichever way it runs. The agent runs its own tool
// and the transport calls Finish, or the call comes back to run in the
// sandbox (a native shell command through `gatehouse exec`) with Run.
type Clearance struct {
	CallID string
	// Plan is what was cleared: its checkpoints and command.
	Plan   *Plan
	runner *Runner
	// asked: clearing it asked the person (it is counted once).
	asked bool
	// pre is the checkpoint before an agent's own edit (RunsNatively).
	pre string
	// readOnly: policy found the call only reads; its run keeps that
	// (the workspaces read-only, no stage, no checkpoint), as the same
	// command through MCP does.
	readOnly bool
}

// Run runs the cleared call in the sandbox under its id: policy and the
// person are not asked again, but pause, kill and budgets apply now.
func (cl *Clearance) Run(ctx context.Context, req Request) Result {
	req.Continues = cl
	return cl.runner.Call(ctx, req)
}

// Finish records the end of a cleared call its agent ran itself (a native
// edit): the checkpoint after it and its result.
func (cl *Clearance) Finish(ctx context.Context, req Request, out Output) Result {
	req.Continues = cl
	return cl.runner.finishNative(ctx, req, out)
}

// InFlight is one tool call on its way through the pipeline: its id, the
// session, what was asked and what has been worked out so far. It is
// passed down explicitly; nothing of it travels in a context.
type InFlight struct {
	ID    string
	State *session.State
	Req   Request
	tool  *Tool
	plan  *Plan
	// readOnly: policy found the call only reads, so it is not
	// checkpointed (there is nothing to undo).
	readOnly bool
	// held keeps a local read's early audit rows until its result (nil
	// for every other call); see readlog.go.
	held *callLog
	// stage is the call's staged layers, when it runs staged; stageFull
	// is set when the run outgrew the budget and was stopped.
	stage     *effect.Run
	stageFull *effect.ErrFull
	// stopped: the kill switch ended its command; nothing of it lands.
	stopped bool
	// denial is who refused the call before it ran, for its outcome.
	denial *session.End
	// asked: it has waited on the person; counted: its outcome is counted
	// (each once, see outcome.go).
	asked, counted atomic.Bool
	// proposal is a path the sandbox hid from the call's command that
	// the person may show it read-only (widen.go); showReadOnly are the
	// paths shown to the call's next run; again runs the call again.
	proposal     string
	showReadOnly []string
	again        bool
	// gitDirs are the linked worktree's common git dirs a checked run's
	// checkpoints hold beside the workspaces (see linkedGitDirs).
	gitDirs []string
	// endDir is where the run's shell ended, when Req.KeepsCwd and it
	// moved (enddir.go).
	endDir string
}

// EndDir is the directory the call's shell command moved to and ended
// in, as the command reported it, for an agent that keeps its shell's
// directory; "" when it stayed, failed, or the agent does not keep it.
func (c *InFlight) EndDir() string { return c.endDir }

// Session is the call's Gatehouse session id.
func (c *InFlight) Session() string { return c.State.Live.ID() }

// actor is the audit actor of the agent behind the call.
func (c *InFlight) actor() string { return c.State.Live.Actor() }

func (r *Runner) newCallID() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return fmt.Sprintf("c_%d_%s", r.seq.Add(1), hex.EncodeToString(b))
}
