package call

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/call/effect"
)

// TestCommandResultRoundTrip: what the runner encodes for run_command is
// what a transport decodes, field by field, including the parts added
// after the run (the effect, notes, a warning) and a call that never ran.
// (The tool's own encoding of a run is held in package tools.)
func TestCommandResultRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		res  func() Result
		want CommandResult
	}{
		{
			name: "ran",
			res: func() Result {
				out := Output{Structured: CommandResult{ExitCode: 3, Stdout: "OUT\n", Stderr: "ERR\n", StdoutBytes: 4, StderrBytes: 4, DurationMS: 1500}.Structured()}
				out.Structured["notes"] = []string{"a note"}
				out = withEffect(out, effect.Result{Outcome: effect.OutcomeDiscarded, Staged: true, Held: true, Created: 2, Reason: "you said no", Note: "not applied"})
				return Result{CallID: "c1", Structured: out.Structured}
			},
			want: CommandResult{ExitCode: 3, Stdout: "OUT\n", Stderr: "ERR\n", StdoutBytes: 4, StderrBytes: 4, DurationMS: 1500,
				Notes:  []string{"a note"},
				Effect: &effect.Result{Outcome: effect.OutcomeDiscarded, Staged: true, Held: true, Created: 2, Reason: "you said no", Note: "not applied"}},
		},
		{
			name: "killed",
			res: func() Result {
				out := Output{Structured: CommandResult{ExitCode: -1, Signal: "SIGKILL", Killed: true, KillReason: "timeout"}.Structured()}
				out.Structured["warning"] = "no checkpoint"
				return Result{Structured: out.Structured}
			},
			want: CommandResult{ExitCode: -1, Signal: "SIGKILL", Killed: true, KillReason: "timeout", Warning: "no checkpoint"},
		},
		{
			name: "never ran",
			res:  func() Result { return failure("c2", "Gatehouse is paused.") },
			want: CommandResult{ExitCode: -1, Error: "Gatehouse is paused."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CommandResultOf(tt.res())
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("decoded %+v\nwant    %+v", got, tt.want)
			}
		})
	}
}

// TestCommandResultKeysAreItsTags: the map the runner builds by hand has
// exactly the keys the type's json tags name (the always-present ones), so
// the schema, the encoder and the decoder cannot drift apart.
func TestCommandResultKeysAreItsTags(t *testing.T) {
	b, err := json.Marshal(CommandResult{})
	if err != nil {
		t.Fatal(err)
	}
	var tagged map[string]any
	if err := json.Unmarshal(b, &tagged); err != nil {
		t.Fatal(err)
	}
	built := CommandResult{}.Structured()
	for k := range tagged {
		if _, ok := built[k]; !ok {
			t.Errorf("Structured() lacks %q", k)
		}
	}
	for k := range built {
		if _, ok := tagged[k]; !ok {
			t.Errorf("Structured() has %q, which no json tag names", k)
		}
	}
}
