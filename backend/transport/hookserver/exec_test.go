package hookserver

import (
	"slices"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/call"
	"github.com/gatehouse-dev/gatehouse/backend/call/effect"
)

// TestExecResultCarriesTheEffect: what became of a command's changes
// reaches `gatehouse exec` as notes, and a change that did not land is
// flagged whatever the command's own status.
func TestExecResultCarriesTheEffect(t *testing.T) {
	discarded := "The command ran, but its changes were held for the person (rewrites history) and the person discarded them: keep history; the workspace was not touched."
	approved := "The person approved this command's changes, and they are applied."
	tests := []struct {
		name      string
		effect    *effect.Result
		notes     []string
		wantNotes []string
		refused   bool
	}{
		{"no effect", nil, nil, nil, false},
		{"unchanged", &effect.Result{Outcome: effect.OutcomeUnchanged}, nil, nil, false},
		{"applied after approval", &effect.Result{Outcome: effect.OutcomeApplied, Held: true, Note: approved}, nil, []string{approved}, false},
		{"discarded by the person", &effect.Result{Outcome: effect.OutcomeDiscarded, Held: true, By: "person", Message: "keep history", Note: discarded}, nil, []string{discarded}, true},
		{"rolled back", &effect.Result{Outcome: effect.OutcomeRolledBack, Note: "rolled back."}, nil, []string{"rolled back."}, true},
		{"kept out", &effect.Result{Outcome: effect.OutcomeApplied, KeptOut: []string{".git/hooks/pre-commit"}, Note: "kept out."}, nil, []string{"kept out."}, true},
		{"the command's own notes first", &effect.Result{Outcome: effect.OutcomeApplied, Note: "applied, but conflicts."}, []string{"the disk is full"}, []string{"the disk is full", "applied, but conflicts."}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cr := call.CommandResult{ExitCode: 0, Stdout: "HEAD is now at 1234567 first\n"}
			s := cr.Structured()
			if tt.notes != nil {
				s["notes"] = tt.notes
			}
			if tt.effect != nil {
				s["effect"] = call.StructuredOf(*tt.effect)
			}
			got := execResult(call.Result{CallID: "c_1", Structured: s})
			if got.Error != "" || got.Stdout != cr.Stdout || got.ExitCode != 0 {
				t.Fatalf("result %+v", got)
			}
			if !slices.Equal(got.Notes, tt.wantNotes) || got.ChangesRefused != tt.refused {
				t.Fatalf("notes %q refused %v, want %q %v", got.Notes, got.ChangesRefused, tt.wantNotes, tt.refused)
			}
		})
	}
}
