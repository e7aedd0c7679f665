package initproc

import (
	"testing"

	"golang.org/x/sys/unix"
)

// The target's process limit leaves a reserve above it that only the
// supervisor reaches: a run that fills its limit cannot take the room
// the supervisor's threads need.
func TestTargetRlimitsKeepTheSupervisorsReserve(t *testing.T) {
	tests := []struct {
		name             string
		in               Rlimit
		wantCur, wantMax uint64
	}{
		{"process limit", Rlimit{Resource: unix.RLIMIT_NPROC, Cur: 64, Max: 64}, 64 + supervisorThreads, 64 + supervisorThreads + supervisorReserve},
		{"unlimited stays so", Rlimit{Resource: unix.RLIMIT_NPROC, Cur: unix.RLIM_INFINITY, Max: unix.RLIM_INFINITY}, unix.RLIM_INFINITY, unix.RLIM_INFINITY},
		{"other limits as asked", Rlimit{Resource: unix.RLIMIT_NOFILE, Cur: 256, Max: 256}, 256, 256},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := targetRlimits([]Rlimit{tt.in})
			if got[0].Cur != tt.wantCur || got[0].Max != tt.wantMax {
				t.Errorf("targetRlimits(%+v) = cur %d max %d, want cur %d max %d", tt.in, got[0].Cur, got[0].Max, tt.wantCur, tt.wantMax)
			}
		})
	}
}
