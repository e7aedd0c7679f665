package hookwire

// The daemon's routes for hooks and for the commands they clear, and what
// travels on them: `gatehouse hook` posts a HookRequest, the agent's shell
// then runs `gatehouse exec`, which posts an ExecRequest and prints the
// command's output as ExecFrames bring it, then what the ExecResult adds;
// what it reads from its own stdin meanwhile it posts to ExecInputPath.
// Only the agent capability opens them.
const (
	HookPath      = "/mcp/hook"
	ExecPath      = "/mcp/exec"
	ExecInputPath = "/mcp/exec/input"
)

// InputHeader names, on ExecInputPath, the running command the body is
// input for: the key its streamed answer gave (ExecFrame.Input).
const InputHeader = "Gatehouse-Exec-Input"

// HookRequest is what `gatehouse hook` posts.
type HookRequest struct {
	Event Event `json:"event"`
	// Exec is how the agent's shell can run `gatehouse exec`: the absolute
	// binary and its global flags (--data DIR).
	Exec []string `json:"exec"`
}

// ExecRequest is what `gatehouse exec` posts.
type ExecRequest struct {
	Ticket  string `json:"ticket"`
	Command string `json:"command"`
	// Stream asks for the command's output as it comes: the answer is then
	// ExecFrames, one JSON object a line (StreamType), the last holding the
	// result without the output already sent.
	Stream bool `json:"stream,omitempty"`
	// Input: the client has input for the command (its stdin is a
	// terminal, a pipe or a file, not /dev/null). A streamed answer then
	// begins with a frame naming the key to post it under.
	Input bool `json:"input,omitempty"`
}

// StreamType is the content type of a streamed exec answer.
const StreamType = "application/x-ndjson"

// ExecFrame is one line of a streamed exec answer: a piece of the
// command's output, redacted, or at the end its result.
type ExecFrame struct {
	// Input, in the first frame of an answer to a request with Input, is
	// the key to post the command's input under (InputHeader); the
	// command reads it as its stdin until the post ends or it exits.
	Input  string      `json:"input,omitempty"`
	Stdout string      `json:"stdout,omitempty"`
	Stderr string      `json:"stderr,omitempty"`
	Result *ExecResult `json:"result,omitempty"`
}

// ExecResult is what it gets back: the command's status and output, or
// why it did not run.
type ExecResult struct {
	ExitCode   int    `json:"exit_code"`
	Signal     string `json:"signal,omitempty"`
	Killed     bool   `json:"killed,omitempty"`
	KillReason string `json:"kill_reason,omitempty"`
	Stdout     string `json:"stdout,omitempty"`
	Stderr     string `json:"stderr,omitempty"`
	Error      string `json:"error,omitempty"`
	Warning    string `json:"warning,omitempty"`
	// Notes are what Gatehouse adds for the model, one sentence each:
	// what it saw that the output does not say, and what became of the
	// command's changes (applied after the person's approval, discarded
	// with their message, rolled back, kept out, conflicts).
	Notes []string `json:"notes,omitempty"`
	// ChangesRefused: some or all of the command's changes did not land
	// (discarded, rolled back, protected paths kept out), which the
	// command's own exit status does not say.
	ChangesRefused bool `json:"changes_refused,omitempty"`
	// Cwd is the directory the command's shell ended in, when it moved
	// (a `cd`) to a directory of a workspace that exists after its
	// changes landed, for an agent whose shell keeps it (ExecRequest of a
	// line with --cd-file).
	Cwd string `json:"cwd,omitempty"`
}
