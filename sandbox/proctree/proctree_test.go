package proctree

import (
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"
)

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

func TestDescendantsOf(t *testing.T) {
	procs := []Proc{{1, 0, false}, {10, 1, false}, {11, 10, false}, {12, 11, true}, {13, 12, false}, {20, 1, false}}
	got := descendantsOf(10, procs)
	slices.Sort(got)
	if want := []int{11, 13}; !slices.Equal(got, want) {
		t.Fatalf("descendants = %v, want %v", got, want)
	}
}

// A grandchild that calls setsid leaves the process group but not the
// tree; KillDescendants must still reach it.
func TestKillDescendantsReachesSetsidGrandchild(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", "setsid sleep 300 & sleep 300 & wait")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	deadline := time.Now().Add(10 * time.Second)
	var pids []int
	for time.Now().Before(deadline) {
		pids, _ = Descendants(cmd.Process.Pid)
		if len(pids) >= 2 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(pids) < 2 {
		t.Fatalf("want 2 descendants, saw %v", pids)
	}
	if err := KillDescendants(cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	for _, p := range pids {
		if err := syscall.Kill(p, 0); err == nil {
			// It may be a zombie waiting for init to reap it; that is dead.
			procs, _ := List()
			for _, q := range procs {
				if q.PID == p && !q.Zombie {
					t.Errorf("pid %d survived", p)
				}
			}
		}
	}
}
