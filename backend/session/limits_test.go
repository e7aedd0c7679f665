package session

import (
	"testing"
	"time"
)

// TestLimitsSpent names the first budget gone past, and none at the
// budget itself: a session may use all of it.
func TestLimitsSpent(t *testing.T) {
	now := time.Date(2025, 1, 2, 15, 0, 0, 0, time.UTC)
	started := now.Add(-time.Hour)
	lim := Limits{MaxCalls: 10, Wall: 2 * time.Hour, ExecTime: time.Minute, OutputBytes: 3 << 20}
	tests := []struct {
		name string
		lim  Limits
		info Counters
		ago  time.Duration // how long before now the session started
		want string
	}{
		{name: "within all", lim: lim, info: Counters{Calls: 10, CPUMillis: 60_000, OutputBytes: 3 << 20}, ago: 2 * time.Hour},
		{name: "calls", lim: lim, info: Counters{Calls: 11}, want: "10 tool calls"},
		{name: "wall", lim: lim, ago: 2*time.Hour + time.Second, want: "2h0m0s of wall-clock time"},
		{name: "exec", lim: lim, info: Counters{CPUMillis: 60_001}, want: "1m0s of command run time"},
		{name: "output", lim: lim, info: Counters{OutputBytes: 3<<20 + 1}, want: "3 MiB of output"},
		{name: "calls before output", lim: lim, info: Counters{Calls: 11, OutputBytes: 4 << 20}, want: "10 tool calls"},
		{name: "zero is no limit", info: Counters{Calls: 1 << 40, CPUMillis: 1 << 40, OutputBytes: 1 << 40}, ago: 1000 * time.Hour},
		{name: "defaults", lim: DefaultLimits(), info: Counters{Calls: 5001}, want: "5000 tool calls"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info := Info{StartedAt: started, Counters: tt.info}
			if tt.ago != 0 {
				info.StartedAt = now.Add(-tt.ago)
			}
			if got := tt.lim.Spent(info, now); got != tt.want {
				t.Errorf("Spent = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestLimitsDoubled extends the budgets that are used up, and leaves the
// others and the unlimited ones alone.
func TestLimitsDoubled(t *testing.T) {
	now := time.Date(2025, 1, 2, 15, 0, 0, 0, time.UTC)
	lim := Limits{MaxCalls: 10, Wall: time.Hour, ExecTime: time.Minute, OutputBytes: 1 << 20}
	tests := []struct {
		name string
		lim  Limits
		info Counters
		ago  time.Duration
		want Limits
	}{
		{name: "none spent", lim: lim, info: Counters{Calls: 9}, ago: time.Minute, want: lim},
		{name: "calls at the budget", lim: lim, info: Counters{Calls: 10}, ago: time.Minute,
			want: Limits{MaxCalls: 20, Wall: time.Hour, ExecTime: time.Minute, OutputBytes: 1 << 20}},
		{name: "calls past the budget", lim: lim, info: Counters{Calls: 15}, ago: time.Minute,
			want: Limits{MaxCalls: 30, Wall: time.Hour, ExecTime: time.Minute, OutputBytes: 1 << 20}},
		{name: "wall", lim: lim, ago: 90 * time.Minute,
			want: Limits{MaxCalls: 10, Wall: 3 * time.Hour, ExecTime: time.Minute, OutputBytes: 1 << 20}},
		{name: "exec and output", lim: lim, info: Counters{CPUMillis: 90_000, OutputBytes: 2 << 20}, ago: time.Minute,
			want: Limits{MaxCalls: 10, Wall: time.Hour, ExecTime: 3 * time.Minute, OutputBytes: 4 << 20}},
		{name: "unlimited stays so", info: Counters{Calls: 100, CPUMillis: 100, OutputBytes: 100}, ago: time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info := Info{StartedAt: now.Add(-tt.ago), Counters: tt.info}
			if got := tt.lim.Doubled(info, now); got != tt.want {
				t.Errorf("Doubled = %+v, want %+v", got, tt.want)
			}
		})
	}
}
