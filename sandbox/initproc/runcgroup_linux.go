package initproc

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// A root run's pids cgroup, as a Landlock supervisor holds it: the
// supervisor joins it while it waits, so its target is born inside, and
// leaves it once the target is forked, so pids.max counts the run's
// processes and none of the supervisor's threads. A supervisor that
// stayed inside shared the limit with the run: a fork bomb filled it,
// the Go runtime then found no room for a thread it needed, and the
// supervisor died, failing the call with "stopped from outside
// Gatehouse". (CLONE_INTO_CGROUP would need no leaving, but only cgroup
// v2 has it, and hybrid hosts keep pids on v1.)

// homeCgroup is the cgroup.procs of the cgroup the supervisor came from
// in the run's hierarchy; nil when there is none to go back to.
type homeCgroup struct{ procs *os.File }

// joinRunCgroup joins the cgroup whose procs file is open at fd (none
// when 0) and opens the one it leaves, to go back to: after joining,
// the line of /proc/self/cgroup that changed names both, and the procs
// file's path gives the hierarchy's mount. It runs unconfined: Landlock
// would refuse the open.
func joinRunCgroup(fd int) (homeCgroup, error) {
	if fd == 0 {
		return homeCgroup{}, nil
	}
	runProcs, _ := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd))
	before, _ := os.ReadFile("/proc/self/cgroup")
	if err := joinCgroupFD(fd); err != nil {
		return homeCgroup{}, err
	}
	after, _ := os.ReadFile("/proc/self/cgroup")
	home, ok := homeProcsPath(runProcs, string(before), string(after))
	if !ok {
		return homeCgroup{}, nil // the supervisor stays inside, as before
	}
	f, err := os.OpenFile(home, os.O_WRONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return homeCgroup{}, nil
	}
	return homeCgroup{procs: f}, nil
}

// homeProcsPath finds, from the run's cgroup.procs path and this
// process's /proc/self/cgroup before and after joining it, the procs file
// of the cgroup it came from.
func homeProcsPath(runProcs, before, after string) (string, bool) {
	if runProcs == "" {
		return "", false
	}
	was := map[string]string{}
	for _, line := range strings.Split(before, "\n") {
		if id, path, ok := cutCgroupLine(line); ok {
			was[id] = path
		}
	}
	for _, line := range strings.Split(after, "\n") {
		id, now, ok := cutCgroupLine(line)
		if !ok || was[id] == now || was[id] == "" {
			continue
		}
		runDir := filepath.Dir(runProcs)
		mount, found := strings.CutSuffix(runDir, now)
		if !found || mount == "" {
			return "", false
		}
		return filepath.Join(mount, was[id], "cgroup.procs"), true
	}
	return "", false
}

// cutCgroupLine splits a /proc/self/cgroup line, "id:controllers:path",
// into its hierarchy (id and controllers) and path; the path may hold
// colons itself, the first two fields never do.
func cutCgroupLine(line string) (hierarchy, path string, ok bool) {
	f := strings.SplitN(line, ":", 3)
	if len(f) != 3 || !strings.HasPrefix(f[2], "/") {
		return "", "", false
	}
	return f[0] + ":" + f[1], f[2], true
}

// leave takes this whole process back to the cgroup it came from, once
// the target is born inside the run's. A failure leaves it inside, as
// before there was leaving: the run is bounded either way.
func (h homeCgroup) leave() {
	if h.procs == nil {
		return
	}
	_, _ = h.procs.WriteString("0")
	h.procs.Close()
}
