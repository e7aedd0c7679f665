//go:build integration

package bwrap

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/proctree"
	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

// Runs of one session come from one zygote, and must still be as apart
// as sandboxes of their own: what one leaves in /tmp or $HOME is gone
// for the next, and a run sees neither another run's processes nor its
// listening sockets, nor the zygote.
func TestRunsOfASessionAreApart(t *testing.T) {
	ctx := t.Context()
	b, err := New(ctx, Options{})
	if err != nil {
		t.Fatalf("bwrap backend unavailable: %v", err)
	}
	ws := t.TempDir() // under /tmp: the workspace stays in every run's fresh /tmp
	s, err := b.Open(ctx, sandbox.SessionSpec{ID: "apart", Workspaces: []string{ws}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	run := func(script string) string {
		t.Helper()
		r, err := s.Run(ctx, sandbox.Spec{Argv: []string{"bash", "-c", script}, Env: []string{"PATH=/usr/bin:/bin"}, Limits: sandbox.DefaultLimits()})
		if err != nil || r.ExitCode != 0 {
			t.Fatalf("%s: exit %d, %v\n%s%s", script, r.ExitCode, err, r.Stdout, r.Stderr)
		}
		return string(r.Stdout)
	}

	// The last run leaves files, and a listener that its end kills: runs
	// one after the other may share a network namespace from the
	// zygote's pool, never what a process left in it.
	run(`echo a > /tmp/left; echo a > "$HOME/left"; echo a > left-in-ws; (busybox nc -l -p 7772 -s 127.0.0.1 &) ; sleep 0.2`)
	out := run(`ls -A /tmp "$HOME" | grep -c '^left$'; cat left-in-ws; (echo > /dev/tcp/127.0.0.1/7772) 2>/dev/null && echo reached-left || echo refused`)
	if out != "0\na\nrefused\n" {
		t.Errorf("the next run sees what the last left in /tmp, $HOME or its network (or lost the workspace):\n%s", out)
	}

	// A run in progress beside the next one.
	long := make(chan string, 1)
	go func() {
		r, err := s.Run(ctx, sandbox.Spec{
			Argv:   []string{"bash", "-c", `exec 3<>/dev/null; busybox nc -l -p 7771 -s 127.0.0.1 & sleep 21 & wait`},
			Env:    []string{"PATH=/usr/bin:/bin"},
			Limits: sandbox.Limits{Wall: 3 * time.Second, Processes: 64},
		})
		long <- string(r.Stdout) + string(r.Stderr) + errString(err)
	}()
	// Up once its sleep runs and its nc has bound, or given up (a busybox
	// without -s refuses the option).
	if !waitfor.Until(10*time.Second, 10*time.Millisecond, func() bool {
		return running("sleep 21") && (listening(7771) || !running("busybox nc -l"))
	}) {
		t.Fatal("the long run never started")
	}
	out = run(`ls /proc | grep -c '^[0-9]'; cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\0' ' ' | grep -c 'sleep 2[1]'; ` +
		`(echo > /dev/tcp/127.0.0.1/7771) 2>/dev/null && echo reached || echo refused; ` +
		`cat /proc/1/cmdline | tr '\0' ' ' | grep -c zygote; true`)
	lines := strings.Fields(out)
	if len(lines) != 4 {
		t.Fatalf("unexpected output:\n%s", out)
	}
	if n, _ := strconv.Atoi(lines[0]); n > 8 {
		t.Errorf("the run sees %d processes: more than its own", n)
	}
	if lines[1] != "0" {
		t.Error("the run sees another run's processes")
	}
	if lines[2] != "refused" {
		t.Error("the run reached another run's listening socket")
	}
	if lines[3] != "0" {
		t.Error("the run's PID 1 is the zygote")
	}
	<-long
}

// The workspaces' lower binds and the stage root, which the zygote
// mounts for staged runs, are covered in every run, staged or not: a run
// cannot write the workspace through them, nor read a hidden secret.
func TestLowerBindsOutOfReach(t *testing.T) {
	ctx := t.Context()
	b, err := New(ctx, Options{})
	if err != nil {
		t.Fatalf("bwrap backend unavailable: %v", err)
	}
	ws, root := t.TempDir(), t.TempDir()
	// Overlayfs leaves its work dir mode 0, which a normal user cannot
	// remove from; the daemon's own stage sweep takes care of that.
	t.Cleanup(func() { openUp(root) })
	must(t, os.WriteFile(filepath.Join(ws, ".env"), []byte("TOKEN=lower-bind-secret\n"), 0o600))
	s, err := b.Open(ctx, sandbox.SessionSpec{ID: "lower", Workspaces: []string{ws}, StageRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	for i := 0; i < 1; i++ {
		for _, d := range []string{sandbox.StageUpper(root, "r", i), sandbox.StageWork(root, "r", i)} {
			must(t, os.MkdirAll(d, 0o700))
		}
	}
	script := `find ` + sandbox.LowerMountPoint + ` ` + sandbox.StageMountPoint + ` -mindepth 1 | wc -l; ` +
		`cat ` + sandbox.LowerOf(0) + `/.env 2>/dev/null; ` +
		`busybox umount ` + sandbox.LowerMountPoint + ` 2>/dev/null && echo UNMOUNTED; ` +
		`busybox umount -l ` + sandbox.StageMountPoint + ` 2>/dev/null && echo UNMOUNTED; ` +
		`(echo x > ` + sandbox.LowerOf(0) + `/planted) 2>/dev/null && echo PLANTED; ` +
		`cat .env; true`
	for _, staged := range []bool{false, true} {
		spec := sandbox.Spec{Argv: []string{"sh", "-c", script}, Env: []string{"PATH=/usr/bin:/bin"}, Limits: sandbox.DefaultLimits()}
		if staged {
			spec.Stage = &sandbox.Stage{Dir: "r"}
		}
		r, err := s.Run(ctx, spec)
		out := string(r.Stdout) + string(r.Stderr)
		if err != nil || r.ExitCode != 0 {
			t.Fatalf("staged=%v: exit %d, %v\n%s", staged, r.ExitCode, err, out)
		}
		if strings.TrimSpace(strings.SplitN(out, "\n", 2)[0]) != "0" {
			t.Errorf("staged=%v: the lower binds or the stage root are in sight:\n%s", staged, out)
		}
		for _, bad := range []string{"lower-bind-secret", "UNMOUNTED", "PLANTED"} {
			if strings.Contains(out, bad) {
				t.Errorf("staged=%v: %s:\n%s", staged, bad, out)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "planted")); err == nil {
		t.Error("a run wrote the workspace through its lower bind")
	}
}

// A zygote that dies (killed, or out of memory) takes its sandboxes with
// it: a command running in one says it was stopped, and the session's
// next call gets a new zygote, even when it took a sandbox that was still
// dying (it had not started, so another may take the call).
func TestZygoteReplacedWhenGone(t *testing.T) {
	ctx := t.Context()
	b, err := New(ctx, Options{})
	if err != nil {
		t.Fatalf("bwrap backend unavailable: %v", err)
	}
	ws := t.TempDir()
	s, err := b.Open(ctx, sandbox.SessionSpec{ID: "gone", Workspaces: []string{ws}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	spec := sandbox.Spec{Argv: []string{"echo", "ran"}, Env: []string{"PATH=/usr/bin:/bin"}, Limits: sandbox.DefaultLimits()}
	if r, err := s.Run(ctx, spec); err != nil || string(r.Stdout) != "ran\n" {
		t.Fatalf("first run: %v %q", err, r.Stdout)
	}
	zygotes := func() []int {
		var out []int
		pids, _ := proctree.Descendants(os.Getpid())
		for _, pid := range pids {
			if cmd := proctree.Cmdline(pid); len(cmd) > 0 && strings.HasSuffix(cmd[0], "bwrap") {
				out = append(out, pid)
			}
		}
		return out
	}
	killed := zygotes()
	if len(killed) == 0 {
		t.Fatal("no zygote found")
	}
	// A command running when its zygote dies dies with it, and says so.
	running := make(chan error, 1)
	started := filepath.Join(ws, "started")
	go func() {
		_, err := s.Run(ctx, sandbox.Spec{Argv: []string{"sh", "-c", "touch started; sleep 30"}, Env: spec.Env, Limits: sandbox.DefaultLimits()})
		running <- err
	}()
	waitfor.Until(5*time.Second, 5*time.Millisecond, func() bool {
		_, err := os.Stat(started)
		return err == nil
	})
	for _, pid := range killed {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	select {
	case err := <-running:
		if err == nil || !strings.Contains(err.Error(), "stopped from outside") {
			t.Errorf("a run whose zygote was killed: %v, want it said", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a run outlived its zygote")
	}
	// Gone, and with them every process of their PID namespace.
	waitfor.Until(5*time.Second, 10*time.Millisecond, func() bool { return len(zygotes()) == 0 })
	if r, err := s.Run(ctx, spec); err != nil || string(r.Stdout) != "ran\n" {
		t.Fatalf("run after the zygote was killed: %v %q %s (%+v)", err, r.Stdout, r.Stderr, r)
	}
}

// openUp makes every directory below root the owner's to list and empty.
func openUp(root string) {
	_ = os.Chmod(root, 0o700)
	ents, _ := os.ReadDir(root)
	for _, e := range ents {
		if e.IsDir() {
			openUp(filepath.Join(root, e.Name()))
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// The target is forked by its run's first process, from a thread that
// gave up every capability and installed the network filter; the kernel
// must show both on the target, and the filter and the run's covers must
// refuse what they are for. Runs of a session share no user or PID
// namespace, and none can change the network namespace it borrows from
// the zygote's pool.
func TestCallInitConfinesTheTarget(t *testing.T) {
	ctx := t.Context()
	s := openSession(t, sandbox.SessionSpec{ID: "confined", Workspaces: []string{t.TempDir()}})
	run := func(script string) string {
		t.Helper()
		r, err := s.Run(ctx, sandbox.Spec{Argv: []string{"sh", "-c", script}, Env: []string{"PATH=/usr/bin:/bin"}, Limits: sandbox.DefaultLimits()})
		if err != nil || r.ExitCode != 0 {
			t.Fatalf("%s: exit %d, %v\n%s%s", script, r.ExitCode, err, r.Stdout, r.Stderr)
		}
		return string(r.Stdout)
	}

	status := run(`grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status`)
	for _, want := range []string{"NoNewPrivs:\t1", "Seccomp:\t2"} {
		if !strings.Contains(status, want) {
			t.Errorf("the target lacks %q:\n%s", want, status)
		}
	}

	// vsock reaches the hypervisor, past any network namespace: the
	// filter refuses it, where the host makes one.
	vsock := `import socket; socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM); print("made")`
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Log("no /usr/bin/python3: the vsock refusal is not tried here")
	} else if host, err := exec.Command("/usr/bin/python3", "-c", vsock).CombinedOutput(); err != nil {
		t.Logf("this host makes no vsock socket either (%s): the refusal is not tried here", strings.TrimSpace(string(host)))
	} else if out := run(`/usr/bin/python3 -c '` + vsock + `' 2>&1; true`); strings.Contains(out, "made") || !strings.Contains(out, "PermissionError") {
		t.Errorf("a vsock socket in the run: %s", out)
	}

	// bwrap covers these read-only in its procfs; each run covers its own.
	// (Those this kernel has: /proc/sys always.)
	present := strings.Fields(run(`for p in /proc/sys /proc/sysrq-trigger /proc/irq /proc/bus; do test -e $p && echo $p; done`))
	mounts := run(`cat /proc/self/mountinfo`)
	if len(present) == 0 {
		t.Fatal("no /proc/sys in the run")
	}
	for _, p := range present {
		if !regexp.MustCompile(` ` + regexp.QuoteMeta(p) + ` ro[, ]`).MatchString(mounts) {
			t.Errorf("%s is not read-only in the run:\n%s", p, mounts)
		}
	}

	// The network namespace is the pool's, not the run's to change.
	if out := run(`busybox ip link set lo down 2>&1 && echo DOWN; true`); strings.Contains(out, "DOWN") {
		t.Errorf("a run took its loopback down: %s", out)
	}
	if out := run(`bash -c '(echo > /dev/tcp/127.0.0.1/9) 2>&1' | grep -c refused; true`); !strings.HasPrefix(out, "1") && !strings.HasPrefix(out, "2") {
		t.Errorf("the next run's loopback does not answer: %s", out)
	}

	ns := func() string { return run(`readlink /proc/self/ns/user /proc/self/ns/pid`) }
	if a, b := ns(), ns(); a == b {
		t.Errorf("two runs share their user and PID namespaces:\n%s", a)
	}
}

// running reports whether a process of this test's tree has a command
// line that begins with cmd.
func running(cmd string) bool {
	return len(processes(cmd)) > 0
}

// processes are the pids in this test's tree whose command line begins
// with cmd.
func processes(cmd string) []int {
	pids, _ := proctree.Descendants(os.Getpid())
	var out []int
	for _, pid := range pids {
		if strings.HasPrefix(strings.Join(proctree.Cmdline(pid), " "), cmd) {
			out = append(out, pid)
		}
	}
	return out
}

// listening reports whether a busybox nc of this test's tree listens on
// TCP port in its network namespace, as its /proc/PID/net/tcp shows.
func listening(port int) bool {
	local := fmt.Sprintf(":%04X", port)
	for _, pid := range processes("busybox nc -l") {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/tcp", pid))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) > 3 && strings.HasSuffix(f[1], local) && f[3] == "0A" {
				return true
			}
		}
	}
	return false
}

// A run that fills its process limit leaves the process that forked it,
// its PID 1, room for the threads the Go runtime starts: PID 1's own
// process limit stays above the run's. (Sharing it, a fork bomb that
// filled the limit left the runtime no thread, and PID 1 died with the
// run.) Only builtins run once the limit is full.
func TestFullRunLeavesItsFirstProcessRoom(t *testing.T) {
	ctx := t.Context()
	s := openSession(t, sandbox.SessionSpec{ID: "full", Workspaces: []string{t.TempDir()}})
	limits := sandbox.DefaultLimits()
	limits.Processes = 16
	script := `(for i in $(seq 64); do sleep 300 & done)
for p in 1 self; do while read -r l; do case $l in "Max processes"*) echo "$p $l";; esac; done < /proc/$p/limits; done`
	r, err := s.Run(ctx, sandbox.Spec{Argv: []string{"sh", "-c", script}, Env: []string{"PATH=/usr/bin:/bin"}, Limits: limits})
	if err != nil || r.ExitCode != 0 {
		t.Fatalf("a run that filled its process limit: exit %d, %v\n%s%s", r.ExitCode, err, r.Stdout, r.Stderr)
	}
	if !strings.Contains(strings.ToLower(string(r.Stderr)), "fork") {
		t.Errorf("no fork was refused in a run allowed %d processes: %s", limits.Processes, r.Stderr)
	}
	soft := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(r.Stdout)), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 {
			t.Fatalf("limits: %q", r.Stdout)
		}
		n, err := strconv.Atoi(f[3])
		if err != nil {
			t.Fatalf("limits: %q", r.Stdout)
		}
		soft[f[0]] = n
	}
	if soft["1"] < soft["self"]+16 {
		t.Errorf("PID 1's process limit is %d, the run's %d: a full run leaves it no room", soft["1"], soft["self"])
	}
}
