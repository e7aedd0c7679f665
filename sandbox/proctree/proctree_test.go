package proctree

import (
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

func TestDescendantsOf(t *testing.T) {
	procs := []Proc{{PID: 1}, {PID: 10, PPID: 1}, {PID: 11, PPID: 10}, {PID: 12, PPID: 11, Zombie: true}, {PID: 13, PPID: 12}, {PID: 20, PPID: 1}}
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
	var pids []int
	waitfor.Until(10*time.Second, 10*time.Millisecond, func() bool {
		pids, _ = Descendants(cmd.Process.Pid)
		return len(pids) >= 2
	})
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
