package cli

import (
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/transport/hookserver"
)

// TestExecStatus: the command's own status, as a shell gives it, except
// that a command that succeeded but whose changes did not land exits 1.
func TestExecStatus(t *testing.T) {
	tests := []struct {
		name string
		res  hookserver.ExecResult
		want int
	}{
		{"success", hookserver.ExecResult{}, 0},
		{"its own failure", hookserver.ExecResult{ExitCode: 2}, 2},
		{"changes discarded", hookserver.ExecResult{ChangesRefused: true}, 1},
		{"failed, and its changes discarded", hookserver.ExecResult{ExitCode: 3, ChangesRefused: true}, 3},
		{"timed out", hookserver.ExecResult{ExitCode: -1, Killed: true, KillReason: "timeout"}, 124},
		{"a signal", hookserver.ExecResult{ExitCode: -1, Signal: "terminated"}, 143},
		{"an unknown signal", hookserver.ExecResult{ExitCode: -1, Signal: "SIGWHAT"}, 137},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := execStatus(tt.res); got != tt.want {
				t.Fatalf("execStatus(%+v) = %d, want %d", tt.res, got, tt.want)
			}
		})
	}
}
