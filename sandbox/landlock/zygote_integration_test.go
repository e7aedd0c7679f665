//go:build integration

package landlock

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

func openZygoteSession(t *testing.T, ws string, hidden ...string) sandbox.Session {
	t.Helper()
	b, err := New(Options{})
	if err != nil {
		t.Fatalf("landlock unavailable: %v", err)
	}
	s, err := b.Open(t.Context(), sandbox.SessionSpec{ID: "zygote", Workspaces: []string{ws}, Hidden: hidden})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(t.Context()) })
	return s
}

func runScript(t *testing.T, s sandbox.Session, script string) sandbox.Result {
	t.Helper()
	// Each call should take a sandbox the zygote started ahead.
	waitfor.For(t, 30*time.Second, "the session's next sandboxes built", func() bool { return sandbox.Warming(s) == 0 })
	r, err := s.Run(t.Context(), sandbox.Spec{Argv: []string{"sh", "-c", script}, Limits: sandbox.DefaultLimits()})
	if err != nil {
		t.Fatalf("%s: %v", script, err)
	}
	return r
}

// fields reads "key=value" lines.
func fields(out []byte) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			m[k] = v
		}
	}
	return m
}

// Calls of a session are supervisors one zygote started, each forked
// from a thread it confined: each is as confined as a helper that
// confined itself was, and a second call sees nothing the first left.
func TestZygoteRunsStayApart(t *testing.T) {
	ws := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".env"), []byte("TOKEN=zygote-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	hiddenDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "f"), []byte("outside-secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(hiddenDir, "f"), []byte("hidden-secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := openZygoteSession(t, ws, hiddenDir)

	// What a run finds out about itself and its supervisor, and what it
	// is refused.
	probe := fmt.Sprintf(`
sup=$PPID
echo sup=$sup
echo zygote=$(cut -d' ' -f4 /proc/$sup/stat)
echo home=$HOME
echo tmp=$TMPDIR
ls -A "$HOME" | grep -q left && echo home-leftover=yes
ls -A "$TMPDIR" | grep -q left && echo tmp-leftover=yes
cat .env 2>/dev/null && echo read-secret=yes
cat %[1]s/f 2>/dev/null && echo read-outside=yes
cat %[2]s/f 2>/dev/null && echo read-hidden=yes
echo x 2>/dev/null > %[1]s/new && echo wrote-outside=yes
echo x > src/mine && echo wrote-workspace=yes
kill -0 $sup 2>/dev/null && echo signal-supervisor=yes
cat /proc/$sup/environ >/dev/null 2>&1 && echo read-supervisor=yes
command -v bash >/dev/null && bash -c 'echo > /dev/tcp/127.0.0.1/9' 2>/dev/null && echo connected=yes
echo left > "$HOME/left"; echo left > "$TMPDIR/left"
setsid sleep 300 & echo bg=$!
exit 0
`, outside, hiddenDir)
	var first map[string]string
	for i := 0; i < 3; i++ {
		r := runScript(t, s, probe)
		got := fields(r.Stdout)
		for _, refused := range []string{"home-leftover", "tmp-leftover", "read-secret", "read-outside", "read-hidden", "wrote-outside", "signal-supervisor", "read-supervisor", "connected"} {
			if got[refused] != "" {
				t.Errorf("call %d: %s (stdout %q, stderr %q)", i, refused, r.Stdout, r.Stderr)
			}
		}
		if got["wrote-workspace"] != "yes" {
			t.Errorf("call %d could not write its workspace: %s", i, r.Stderr)
		}
		bg, err := strconv.Atoi(got["bg"])
		if err != nil {
			t.Fatalf("call %d: no background pid in %q (stderr %q)", i, r.Stdout, r.Stderr)
		}
		// Everything the call started is gone once it has returned.
		if err := syscall.Kill(bg, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("call %d: its background process %d outlived it (%v)", i, bg, err)
		}
		if first == nil {
			first = got
			continue
		}
		if got["zygote"] != first["zygote"] || got["zygote"] == "" {
			t.Errorf("call %d came from zygote %q, the first from %q", i, got["zygote"], first["zygote"])
		}
		if got["sup"] == first["sup"] || got["home"] == first["home"] || got["tmp"] == first["tmp"] {
			t.Errorf("call %d shares its supervisor, home or temporary directory with the first: %v, %v", i, got, first)
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "new")); err == nil {
		t.Error("a call wrote outside its workspace")
	}
}

// A run whose supervisor dies (killed from outside here; a run could
// signal the thread that forked it, for a moment) leaves nothing
// running: the zygote kills what comes to it.
func TestSupervisorDeathTakesTheRun(t *testing.T) {
	ws := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := openZygoteSession(t, ws)
	waitfor.For(t, 30*time.Second, "the session's next sandboxes built", func() bool { return sandbox.Warming(s) == 0 })
	type result struct {
		r   sandbox.Result
		err error
	}
	// No process limit, so no pids cgroup as root: its kill would take
	// the run with it whatever the zygote does.
	limits := sandbox.DefaultLimits()
	limits.Processes = 0
	done := make(chan result, 1)
	go func() {
		r, err := s.Run(t.Context(), sandbox.Spec{Argv: []string{"sh", "-c",
			`setsid sh -c 'sleep 300' & echo "$PPID $!" > out/pids.tmp && mv out/pids.tmp out/pids; sleep 300`},
			Limits: limits})
		done <- result{r, err}
	}()
	var sup, bg int
	waitfor.For(t, 30*time.Second, "the run to say its pids", func() bool {
		b, err := os.ReadFile(filepath.Join(ws, "out", "pids"))
		if err != nil {
			return false
		}
		_, err = fmt.Sscan(string(b), &sup, &bg)
		return err == nil
	})
	if err := syscall.Kill(sup, syscall.SIGKILL); err != nil {
		t.Fatalf("kill the supervisor %d: %v", sup, err)
	}
	select {
	case res := <-done:
		if res.err == nil {
			t.Errorf("a run whose supervisor was killed returned no error: %+v", res.r)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the call did not return once its supervisor was killed")
	}
	waitfor.For(t, 10*time.Second, "the run's background process killed", func() bool {
		return errors.Is(syscall.Kill(bg, 0), syscall.ESRCH)
	})
}

// A zygote that dies takes the sandboxes it had ready with it, unused
// (each supervisor is told to stop while it waits), and the next call
// gets a new one: it runs, once.
func TestZygoteDeathRunsNothingTwice(t *testing.T) {
	ws := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := openZygoteSession(t, ws)
	r := runScript(t, s, `cut -d' ' -f4 /proc/$PPID/stat`)
	zygote, err := strconv.Atoi(strings.TrimSpace(string(r.Stdout)))
	if err != nil || zygote <= 1 {
		t.Fatalf("no zygote pid in %q (stderr %q)", r.Stdout, r.Stderr)
	}
	waitfor.For(t, 30*time.Second, "the session's next sandboxes built", func() bool { return sandbox.Warming(s) == 0 })
	if err := syscall.Kill(zygote, syscall.SIGKILL); err != nil {
		t.Fatalf("kill the zygote %d: %v", zygote, err)
	}
	waitfor.For(t, 10*time.Second, "the zygote gone", func() bool { return errors.Is(syscall.Kill(zygote, 0), syscall.ESRCH) })
	r = runScript(t, s, `echo ran >> out/log; cut -d' ' -f4 /proc/$PPID/stat`)
	if r.ExitCode != 0 {
		t.Fatalf("the call after the zygote died: exit %d, stderr %q", r.ExitCode, r.Stderr)
	}
	if got := strings.TrimSpace(string(r.Stdout)); got == strconv.Itoa(zygote) {
		t.Errorf("the call came from the dead zygote %s", got)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "out", "log")); string(b) != "ran\n" {
		t.Errorf("the command ran %q times, want once", b)
	}
}

// A run that fills its process limit leaves its supervisor room for the
// threads the Go runtime starts: as root the supervisor is outside the
// run's pids cgroup, and as a user its process limit is above the run's.
// Inside either, a fork bomb that filled the limit left the runtime no
// thread, and the supervisor died, failing the call.
func TestFullRunLeavesItsSupervisorRoom(t *testing.T) {
	ws := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(ws, "out", "go"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := openZygoteSession(t, ws)
	waitfor.For(t, 30*time.Second, "the session's next sandboxes built", func() bool { return sandbox.Warming(s) == 0 })
	limits := sandbox.DefaultLimits()
	limits.Processes = 16
	limits.Wall = time.Minute
	type result struct {
		r   sandbox.Result
		err error
	}
	done := make(chan result, 1)
	go func() {
		// The subshell ends at the fork refused (the shell's way); only
		// builtins after it, since the run is full.
		r, err := s.Run(t.Context(), sandbox.Spec{Argv: []string{"sh", "-c",
			`(for i in $(seq 64); do sleep 300 & done); echo "$PPID $$" > out/pids; read x < out/go; exit 0`},
			Limits: limits})
		done <- result{r, err}
	}()
	var sup, shell int
	waitfor.For(t, 30*time.Second, "the run to fill its process limit", func() bool {
		select {
		case res := <-done:
			t.Fatalf("the run ended before it filled its limit: %v, %+v", res.err, res.r)
		default:
		}
		b, err := os.ReadFile(filepath.Join(ws, "out", "pids"))
		if err != nil {
			return false
		}
		_, err = fmt.Sscan(string(b), &sup, &shell)
		return err == nil
	})
	if os.Geteuid() == 0 {
		supGroup, runGroup := procFile(t, sup, "cgroup"), procFile(t, shell, "cgroup")
		if supGroup == runGroup {
			t.Errorf("the supervisor shares the run's pids cgroup %q", runGroup)
		}
	} else {
		supLimit, runLimit := softProcessLimit(t, sup), softProcessLimit(t, shell)
		if supLimit < runLimit+16 {
			t.Errorf("the supervisor's process limit is %d, the run's %d: a full run leaves it no room", supLimit, runLimit)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "out", "go"), []byte("\n"), 0); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-done:
		if res.err != nil {
			t.Fatalf("a run that filled its process limit failed: %v", res.err)
		}
		if res.r.ExitCode != 0 || !strings.Contains(strings.ToLower(string(res.r.Stderr)), "fork") {
			t.Errorf("want exit 0 after refused forks; got exit %d, stderr %q", res.r.ExitCode, res.r.Stderr)
		}
	case <-time.After(time.Minute):
		t.Fatal("the full run did not return")
	}
}

func procFile(t *testing.T, pid int, name string) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// softProcessLimit reads the soft "Max processes" of /proc/pid/limits.
func softProcessLimit(t *testing.T, pid int) int {
	t.Helper()
	for _, line := range strings.Split(procFile(t, pid, "limits"), "\n") {
		if f := strings.Fields(strings.TrimPrefix(line, "Max processes")); strings.HasPrefix(line, "Max processes") && len(f) > 0 {
			n, err := strconv.Atoi(f[0])
			if err != nil {
				return 1 << 30 // unlimited
			}
			return n
		}
	}
	t.Fatalf("no process limit for %d", pid)
	return 0
}
