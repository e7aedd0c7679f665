package call

import (
	"encoding/json"
	"fmt"
)

// CommandResult is run_command's structured result, as its output schema
// (outschemas.go) describes it to clients. The runner encodes it into a
// Result's structured part; a transport that needs the fields back (the
// hook's `gatehouse exec`) decodes it with CommandResultOf, so no caller
// reads the result by string key.
type CommandResult struct {
	ExitCode        int           `json:"exit_code"`
	Signal          string        `json:"signal"`
	Killed          bool          `json:"killed"`
	KillReason      string        `json:"kill_reason"`
	Stdout          string        `json:"stdout"`
	Stderr          string        `json:"stderr"`
	StdoutTruncated bool          `json:"stdout_truncated"`
	StderrTruncated bool          `json:"stderr_truncated"`
	StdoutBytes     int           `json:"stdout_bytes"`
	StderrBytes     int           `json:"stderr_bytes"`
	DurationMS      int64         `json:"duration_ms"`
	Notes           []string      `json:"notes,omitempty"`
	Effect          *EffectResult `json:"effect,omitempty"`
	// Warning and Error are the parts every result may carry (finish and
	// failure add them).
	Warning string `json:"warning,omitempty"`
	Error   string `json:"error,omitempty"`
}

// CommandResultOf reads a run_command result back into its type. A call
// that never ran has only Error set, and its ExitCode stays -1.
func CommandResultOf(res Result) (CommandResult, error) {
	out := CommandResult{ExitCode: -1}
	b, err := json.Marshal(res.Structured)
	if err != nil {
		return out, fmt.Errorf("encode call %s's result: %w", res.CallID, err)
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return out, fmt.Errorf("decode call %s's result: %w", res.CallID, err)
	}
	return out, nil
}
