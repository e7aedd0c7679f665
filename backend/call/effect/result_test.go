package effect

import (
	"errors"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/approval"
)

func TestResultAddJoinsSentences(t *testing.T) {
	var r Result
	r.Add("One.")
	r.Add("Two.")
	if r.Note != "One. Two." {
		t.Fatalf("note %q", r.Note)
	}
}

// TestNotApproved: the sentence says who, or what, discarded a held
// change, and carries the person's message.
func TestNotApproved(t *testing.T) {
	tests := []struct {
		d    approval.Decision
		err  error
		want string
	}{
		{approval.Decision{}, errors.New("timed out"), "no decision came (timed out), so they were discarded"},
		{approval.Decision{By: "human", Message: "not now"}, nil, "the person discarded them: not now"},
		{approval.Decision{By: "human"}, nil, "the person discarded them"},
		{approval.Decision{By: "kill"}, nil, "they were discarded (kill)"},
		{approval.Decision{By: "system:kill", Message: "the person stopped all agents"}, nil, "the person's kill switch stopped everything, so they were discarded"},
		{approval.Decision{By: "system:timeout"}, nil, "nobody decided in time, so they were discarded"},
	}
	for _, tt := range tests {
		if got := NotApproved(tt.d, tt.err); got != tt.want {
			t.Errorf("NotApproved(%+v, %v) = %q, want %q", tt.d, tt.err, got, tt.want)
		}
	}
}
