package agentconn

import (
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/transport/hookwire"
)

// TestExecStatus: the command's own status, as a shell gives it, except
// that a command that succeeded but whose changes did not land exits 1.
func TestExecStatus(t *testing.T) {
	tests := []struct {
		name string
		res  hookwire.ExecResult
		want int
	}{
		{"success", hookwire.ExecResult{}, 0},
		{"its own failure", hookwire.ExecResult{ExitCode: 2}, 2},
		{"changes discarded", hookwire.ExecResult{ChangesRefused: true}, 1},
		{"failed, and its changes discarded", hookwire.ExecResult{ExitCode: 3, ChangesRefused: true}, 3},
		{"timed out", hookwire.ExecResult{ExitCode: -1, Killed: true, KillReason: "timeout"}, 124},
		{"a signal", hookwire.ExecResult{ExitCode: -1, Signal: "terminated"}, 143},
		{"an unknown signal", hookwire.ExecResult{ExitCode: -1, Signal: "SIGWHAT"}, 137},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Status(tt.res); got != tt.want {
				t.Fatalf("Status(%+v) = %d, want %d", tt.res, got, tt.want)
			}
		})
	}
}
