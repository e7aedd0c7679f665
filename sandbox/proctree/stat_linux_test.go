package proctree

import "testing"

// statTail is a full line's fields after the name: ppid 41, start
// time 987654.
const statTail = " S 41 42 42 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10"

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
		{"7 (node)" + statTail, Proc{PID: 7, PPID: 41, Comm: "node", Start: 987654}, true},
		{"7 (a) b (c)" + statTail, Proc{PID: 7, PPID: 41, Comm: "a) b (c", Start: 987654}, true},
		{"7 node" + statTail, Proc{}, false},
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
