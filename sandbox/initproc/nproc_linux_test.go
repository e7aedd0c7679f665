package initproc

import (
	"reflect"
	"testing"

	"golang.org/x/sys/unix"
)

// The target's process limit leaves a reserve above it that only the
// process that forked it reaches: a run that fills its limit cannot take
// the room that process's threads need.
func TestTargetRlimitsKeepTheSupervisorsReserve(t *testing.T) {
	tests := []struct {
		name             string
		in               Rlimit
		wantCur, wantMax uint64
	}{
		{"process limit", Rlimit{Resource: unix.RLIMIT_NPROC, Cur: 64, Max: 64}, 64 + 4, 64 + 4 + initReserve},
		{"unlimited stays so", Rlimit{Resource: unix.RLIMIT_NPROC, Cur: unix.RLIM_INFINITY, Max: unix.RLIM_INFINITY}, unix.RLIM_INFINITY, unix.RLIM_INFINITY},
		{"other limits as asked", Rlimit{Resource: unix.RLIMIT_NOFILE, Cur: 256, Max: 256}, 256, 256},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := targetRlimits([]Rlimit{tt.in}, 4)
			if got[0].Cur != tt.wantCur || got[0].Max != tt.wantMax {
				t.Errorf("targetRlimits(%+v) = cur %d max %d, want cur %d max %d", tt.in, got[0].Cur, got[0].Max, tt.wantCur, tt.wantMax)
			}
		})
	}
}

// The run's first process raises only RLIMIT_NPROC by its own threads.
func TestWithInitTasks(t *testing.T) {
	in := []Rlimit{{Resource: unix.RLIMIT_NPROC, Cur: 16, Max: 16}, {Resource: unix.RLIMIT_NOFILE, Cur: 64, Max: 64}}
	got := withInitTasks(in, 4)
	want := []Rlimit{{Resource: unix.RLIMIT_NPROC, Cur: 20, Max: 20}, {Resource: unix.RLIMIT_NOFILE, Cur: 64, Max: 64}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("withInitTasks = %+v, want %+v", got, want)
	}
	if in[0].Cur != 16 {
		t.Error("withInitTasks changed the request's own limits")
	}
}
