package initproc

import "testing"

// The supervisor finds the cgroup it came from in the hierarchy whose
// line changed when it joined the run's: on cgroup v1's pids and on v2.
func TestHomeProcsPath(t *testing.T) {
	tests := []struct {
		name, runProcs, before, after, want string
	}{
		{"v1 pids", "/sys/fs/cgroup/pids/gatehouse/run-1/cgroup.procs",
			"8:pids:/\n4:memory:/svc\n0::/\n", "8:pids:/gatehouse/run-1\n4:memory:/svc\n0::/\n",
			"/sys/fs/cgroup/pids/cgroup.procs"},
		{"v2", "/sys/fs/cgroup/gatehouse/run-2/cgroup.procs",
			"0::/system.slice/gatehouse.service\n", "0::/gatehouse/run-2\n",
			"/sys/fs/cgroup/system.slice/gatehouse.service/cgroup.procs"},
		{"a colon in the path", "/sys/fs/cgroup/gatehouse/run-6/cgroup.procs",
			"0::/user.slice/app:x/and:/more\n", "0::/gatehouse/run-6\n",
			"/sys/fs/cgroup/user.slice/app:x/and:/more/cgroup.procs"},
		{"nothing changed", "/sys/fs/cgroup/gatehouse/run-3/cgroup.procs", "0::/\n", "0::/\n", ""},
		{"path not under its mount", "/elsewhere/cgroup.procs", "0::/\n", "0::/gatehouse/run-4\n", ""},
		{"no procs path", "", "0::/\n", "0::/gatehouse/run-5\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := homeProcsPath(tt.runProcs, tt.before, tt.after)
			if got != tt.want || ok != (tt.want != "") {
				t.Errorf("homeProcsPath = %q, %v; want %q", got, ok, tt.want)
			}
		})
	}
}
