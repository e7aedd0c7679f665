package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/call"
	"github.com/gatehouse-dev/gatehouse/backend/policy"
	"github.com/gatehouse-dev/gatehouse/backend/workspace"
	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// DefaultCommandTimeout applies when the agent gives none.
const DefaultCommandTimeout = 120 * time.Second

// Input schemas are written by hand so every bound is visible: every
// object closes additionalProperties, every string and array has a
// maximum.
var (
	schemaRunCommand = json.RawMessage(`{
  "type": "object",
  "properties": {
    "argv": {"type": "array", "minItems": 1, "maxItems": 4096,
             "items": {"type": "string", "maxLength": 131072},
             "description": "Program and arguments, e.g. [\"go\", \"test\", \"./...\"]. No shell: pipes and globs are not expanded."},
    "cwd": {"type": "string", "maxLength": 4096, "description": "Working directory inside the workspace (default: the workspace root)."},
    "timeout_s": {"type": "integer", "minimum": 1, "maximum": 3600, "description": "Kill the command after this many seconds (default 120)."},
    "stdin": {"type": "string", "maxLength": 1048576, "description": "Text fed to the command's standard input."}
  },
  "required": ["argv"],
  "additionalProperties": false
}`)
	outRunCommand = outputSchema(`
    "exit_code": {"type": "integer", "description": "The command's exit status; -1 when a signal ended it."},
    "signal": {"type": "string", "description": "The signal that ended the command, if any."},
    "killed": {"type": "boolean", "description": "Gatehouse stopped the command (see kill_reason)."},
    "kill_reason": {"type": "string", "description": "timeout, canceled, cpu or protected-path when killed."},
    "notes": {"type": "array", "items": {"type": "string"}, "description": "What Gatehouse saw that the command's own output does not say: a protected path it changed and Gatehouse undid, a full disk."},
    "stdout": {"type": "string", "description": "Standard output (head and tail kept when very long)."},
    "stderr": {"type": "string", "description": "Standard error (head and tail kept when very long)."},
    "stdout_truncated": {"type": "boolean"},
    "stderr_truncated": {"type": "boolean"},
    "stdout_bytes": {"type": "integer", "description": "Bytes the command wrote to stdout."},
    "stderr_bytes": {"type": "integer"},
    "duration_ms": {"type": "integer"},
    "effect": {"type": "object", "description": "What became of the command's changes to the workspace. outcome: unchanged, applied, discarded (the workspace was never touched) or rolled_back. held: the person was asked. decided_by and message: who refused changes that were discarded or rolled back (person, policy, gatehouse, timeout, kill_switch, agent) and what the person wrote. conflicts: paths changed in the workspace meanwhile, where the person's version was kept. kept_out: protected paths it wrote, which never land.",
      "properties": {
        "outcome": {"type": "string", "enum": ["unchanged", "applied", "discarded", "rolled_back"]},
        "staged": {"type": "boolean"}, "held": {"type": "boolean"},
        "created": {"type": "integer"}, "modified": {"type": "integer"}, "deleted": {"type": "integer"},
        "reason": {"type": "string"}, "note": {"type": "string"},
        "decided_by": {"type": "string"}, "message": {"type": "string", "description": "What the person wrote when they discarded the changes."},
        "conflicts": {"type": "array", "items": {"type": "string"}},
        "kept_out": {"type": "array", "items": {"type": "string"}, "description": "Protected paths the command wrote (the host runs or reads them), never applied."}}}`)
)

type runCommandArgs struct {
	Argv     []string `json:"argv"`
	Cwd      string   `json:"cwd"`
	TimeoutS int      `json:"timeout_s"`
	Stdin    *string  `json:"stdin"`
}

// runCommand runs a program in the session's sandbox: argv as given, no
// shell, in the workspace.
func runCommand(d Deps) *call.Tool {
	return &call.Tool{
		Name:  "run_command",
		Title: "Run a command",
		Description: "Run a program with arguments inside the Gatehouse sandbox (writes only in the workspace; the network only through Gatehouse's proxy, one approved domain at a time). " +
			"argv is an array, not a shell string: to use pipes or redirection, run [\"sh\", \"-c\", \"...\"]. The result carries exit_code, stdout and stderr.",
		Schema:       schemaRunCommand,
		OutputSchema: outRunCommand,
		MakePlan: func(ctx context.Context, c *call.InFlight) (*call.Plan, error) {
			return planRunCommand(d, c)
		},
	}
}

func planRunCommand(d Deps, c *call.InFlight) (*call.Plan, error) {
	st := c.State
	var a runCommandArgs
	if err := decode(c.Req.Args, &a); err != nil {
		return nil, err
	}
	for i, arg := range a.Argv {
		if strings.IndexByte(arg, 0) >= 0 {
			return nil, call.Errorf("argv[%d] contains a NUL byte", i)
		}
	}
	if a.Argv[0] == "" {
		return nil, call.Errorf("argv[0] is empty; name the program to run")
	}
	cwd := st.Workspaces[0]
	if a.Cwd != "" {
		c := a.Cwd
		if !filepath.IsAbs(c) {
			c = filepath.Join(st.Workspaces[0], c)
		}
		real, err := filepath.EvalSymlinks(c)
		if err != nil {
			return nil, call.Errorf("cwd %s does not exist", a.Cwd)
		}
		if !workspace.InsideAny(real, st.Workspaces) {
			return nil, call.Errorf("cwd %s is outside the workspace %s", a.Cwd, strings.Join(st.Workspaces, ", "))
		}
		if fi, err := os.Stat(real); err == nil && !fi.IsDir() {
			return nil, call.Errorf("cwd %s is a file, not a directory; name a directory (or leave cwd out to run in %s)", a.Cwd, st.Workspaces[0])
		}
		cwd = real
	}
	bin, err := d.Commands.Lookup(a.Argv[0], cwd)
	if err != nil {
		return nil, err
	}
	timeout := DefaultCommandTimeout
	if a.TimeoutS > 0 {
		timeout = time.Duration(a.TimeoutS) * time.Second
	}
	action := policy.Action{Tool: policy.ToolRunCommand, Argv: a.Argv, Binary: bin, Cwd: cwd}
	plan := &call.Plan{Action: action, MutatesAll: true, Summary: map[string]any{"cwd": cwd, "timeout_s": int(timeout / time.Second)}}
	plan.Run = func(ctx context.Context, c *call.InFlight) (call.Output, error) {
		res, notes, err := d.Commands.RunCommand(ctx, c, call.Command{Argv: a.Argv, Stdin: a.Stdin, Timeout: timeout})
		if err != nil {
			// As it is: the pipeline reads its own errors back (a run
			// that cannot stage goes again checked).
			return call.Output{}, err
		}
		return withNotes(commandOutput(res, c.EndDir(), d.Redact), notes), nil
	}
	return plan, nil
}

// streamKeep is how much of each stream a command's result carries: its
// head and tail, where programs print what matters (the failing test, the
// summary), with the middle cut.
const streamKeep = 96 << 10

// commandOutput is run_command's result: the whole of it in the structured
// part, and the same rendered as text.
func commandOutput(res sandbox.Result, endDir string, redact func(string) string) call.Output {
	outTotal, errTotal := res.Written()
	stdout, outCut := headTail(redact(string(res.Stdout)), streamKeep, outTotal)
	stderr, errCut := headTail(redact(string(res.Stderr)), streamKeep, errTotal)
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
	return call.Output{
		Text:    b.String(),
		IsError: res.ExitCode != 0 || res.Killed,
		Structured: call.CommandResult{
			ExitCode: res.ExitCode, Signal: res.Signal, Killed: res.Killed, KillReason: string(res.KillReason),
			Stdout: stdout, Stderr: stderr,
			StdoutTruncated: res.StdoutTruncated || outCut, StderrTruncated: res.StderrTruncated || errCut,
			StdoutBytes: int(outTotal), StderrBytes: int(errTotal),
			DurationMS: res.Duration.Milliseconds(), Cwd: endDir,
		}.Structured(),
		OutputBytes: int64(len(res.Stdout) + len(res.Stderr)),
		// The sandbox reports wall time; it stands in for CPU time here.
		CPU: res.Duration,
	}
}

// headTail keeps the first and last n/2 bytes of s (on UTF-8 boundaries)
// and says how much it left out between them, of the total bytes the
// stream had: s may already be a capture's head and tail, its own note
// on what it dropped in the middle this cuts.
func headTail(s string, n int, total int64) (string, bool) {
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
	left := max(total-int64(h+len(s)-t), int64(t-h))
	return s[:h] + fmt.Sprintf("\n[gatehouse: %d bytes left out here]\n", left) + s[t:], true
}

// withNotes adds notes to a command's result, in the text and in the
// structured part (which is all some agents show their model).
func withNotes(out call.Output, notes []string) call.Output {
	if len(notes) == 0 {
		return out
	}
	var b strings.Builder
	b.WriteString(out.Text)
	for _, n := range notes {
		fmt.Fprintf(&b, "gatehouse: %s\n", n)
	}
	out.Text = b.String()
	if out.Structured != nil {
		out.Structured["notes"] = notes
	}
	return out
}
