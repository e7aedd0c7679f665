package proctree

import "testing"

func TestParseStat(t *testing.T) {
	tests := []struct {
		in     string
		want   Proc
		wantOK bool
	}{
		{"12 (sh) S 1 12 12 0", Proc{PID: 12, PPID: 1}, true},
		{"13 (a (b) c) Z 12 13", Proc{PID: 13, PPID: 12, Zombie: true}, true},
		{"14 (x) R", Proc{}, false},
		{"garbage", Proc{}, false},
	}
	for _, tc := range tests {
		pid := 0
		if tc.wantOK {
			pid = tc.want.PID
		}
		got, ok := parseStat(pid, []byte(tc.in))
		if ok != tc.wantOK || (ok && got != tc.want) {
			t.Errorf("parseStat(%q) = %+v,%v want %+v,%v", tc.in, got, ok, tc.want, tc.wantOK)
		}
	}
}
