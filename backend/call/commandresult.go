package call

import (
	"encoding/json"
	"fmt"

	"github.com/gatehouse-dev/gatehouse/backend/call/effect"
)

// CommandResult is run_command's structured result, as its output schema
// (outschemas.go) describes it to clients. The runner encodes it into a
// Result's structured part; a transport that needs the fields back (the
// hook's `gatehouse exec`) decodes it with CommandResultOf, so no caller
// reads the result by string key.
type CommandResult struct {
	ExitCode        int            `json:"exit_code"`
	Signal          string         `json:"signal"`
	Killed          bool           `json:"killed"`
	KillReason      string         `json:"kill_reason"`
	Stdout          string         `json:"stdout"`
	Stderr          string         `json:"stderr"`
	StdoutTruncated bool           `json:"stdout_truncated"`
	StderrTruncated bool           `json:"stderr_truncated"`
	StdoutBytes     int            `json:"stdout_bytes"`
	StderrBytes     int            `json:"stderr_bytes"`
	DurationMS      int64          `json:"duration_ms"`
	Notes           []string       `json:"notes,omitempty"`
	Effect          *effect.Result `json:"effect,omitempty"`
	// Warning and Error are the parts every result may carry (finish and
	// failure add them).
	Warning string `json:"warning,omitempty"`
	Error   string `json:"error,omitempty"`
	// Cwd is where a shell command moved its shell to (InFlight.EndDir).
	Cwd string `json:"cwd,omitempty"`
}

// Structured is the result as a Result's structured part. The map is built
// directly, not through JSON: the streams can be large, and this runs for
// every command. Its keys are the json tags above; TestCommandResultRoundTrip
// holds the two together.
func (c CommandResult) Structured() map[string]any {
	m := map[string]any{
		"exit_code": c.ExitCode, "signal": c.Signal, "killed": c.Killed, "kill_reason": c.KillReason,
		"stdout": c.Stdout, "stderr": c.Stderr,
		"stdout_truncated": c.StdoutTruncated, "stderr_truncated": c.StderrTruncated,
		"stdout_bytes": c.StdoutBytes, "stderr_bytes": c.StderrBytes,
		"duration_ms": c.DurationMS,
	}
	if c.Cwd != "" {
		m["cwd"] = c.Cwd
	}
	return m
}

// CommandResultOf reads a run_command result back into its type. A call
// that never ran has only Error set, and its ExitCode stays -1. The
// streams are copied, not re-encoded (the exec path is hot); only the
// small nested parts (notes, effect) go through JSON.
func CommandResultOf(res Result) (CommandResult, error) {
	m := res.Structured
	out := CommandResult{ExitCode: -1}
	str := func(k string) string { s, _ := m[k].(string); return s }
	flag := func(k string) bool { b, _ := m[k].(bool); return b }
	num := func(k string) (int64, bool) {
		switch n := m[k].(type) {
		case int:
			return int64(n), true
		case int64:
			return n, true
		case float64:
			return int64(n), true
		}
		return 0, false
	}
	out.Error, out.Warning = str("error"), str("warning")
	if n, ok := num("exit_code"); ok {
		out.ExitCode = int(n)
	}
	out.Signal, out.Killed, out.KillReason = str("signal"), flag("killed"), str("kill_reason")
	out.Stdout, out.Stderr = str("stdout"), str("stderr")
	out.StdoutTruncated, out.StderrTruncated = flag("stdout_truncated"), flag("stderr_truncated")
	n, _ := num("stdout_bytes")
	out.StdoutBytes = int(n)
	n, _ = num("stderr_bytes")
	out.StderrBytes = int(n)
	out.DurationMS, _ = num("duration_ms")
	out.Cwd = str("cwd")
	nested := struct {
		Notes  []string       `json:"notes,omitempty"`
		Effect *effect.Result `json:"effect,omitempty"`
	}{}
	parts := map[string]any{}
	for _, k := range []string{"notes", "effect"} {
		if v, ok := m[k]; ok {
			parts[k] = v
		}
	}
	if len(parts) > 0 {
		b, err := json.Marshal(parts)
		if err != nil {
			return out, fmt.Errorf("encode call %s's result: %w", res.CallID, err)
		}
		if err := json.Unmarshal(b, &nested); err != nil {
			return out, fmt.Errorf("decode call %s's result: %w", res.CallID, err)
		}
	}
	out.Notes, out.Effect = nested.Notes, nested.Effect
	return out, nil
}
