//go:build integration

package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

// TestRunInitOutlivesSignals: the agent's signals to the
// run's first process (its PID 1, which it may signal since it catches
// them) are dropped, whichever the runtime would otherwise exit or dump
// its stacks on: the run goes on and ends with the agent's own status.
// Not on Landlock, whose runs share the host's PID namespace (its PID 1
// is the machine's init).
func TestRunInitOutlivesSignals(t *testing.T) {
	for _, tc := range []struct{ backend, signals string }{
		{"bwrap", "HUP INT QUIT TERM PIPE ABRT SEGV SYS TRAP USR1 USR2 ALRM WINCH"},
		// In a container the first process passes HUP, TERM, USR1 and
		// USR2 on to the agent, as podman hands them to it.
		{"container", "INT QUIT PIPE ABRT SEGV SYS TRAP ALRM WINCH"},
	} {
		t.Run(tc.backend, func(t *testing.T) {
			d := startRunDaemon(t, tc.backend, "")
			script := `for s in ` + tc.signals + `; do kill -$s 1 || echo "NOT SENT $s"; done
sleep 0.3; echo STILL-RUNNING; exit 5`
			out, errOut, code := runIn(t.Context(), t, d, "--", "sh", "-c", script)
			if code != 5 || !strings.Contains(out, "STILL-RUNNING") || strings.Contains(out, "NOT SENT") {
				t.Fatalf("exit %d, want the agent's own 5\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
		})
	}
}

// TestRunPassesOnAnInterruptOnce: a SIGINT for `gatehouse run` started
// without a terminal (by an IDE, a process manager or an SDK) reaches the
// agent exactly once, however it was started and whether the signal
// went to its pid alone or to its whole process group, as a terminal's
// Ctrl-C does; the run ends with the agent's own status. Before, a
// signal to the pid of a run leading its group never reached the agent,
// and one to the group of a run that did not lead it reached it twice
// (an agent takes a second Ctrl-C as "quit now").
func TestRunPassesOnAnInterruptOnce(t *testing.T) {
	cases := []struct {
		name string
		// ownSession starts `gatehouse run` leading a session and group of
		// its own (Node's detached, setsid); otherwise it is a plain child
		// in its parent's group.
		ownSession bool
		// group signals the whole process group it is in.
		group bool
	}{
		{"a plain child, to its pid", false, false},
		{"a plain child, to its group", false, true},
		{"detached, to its pid", true, false},
		{"detached, to its group", true, true},
	}
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			d := startRunDaemon(t, backend, "")
			for i, tc := range cases {
				t.Run(tc.name, func(t *testing.T) { interruptOnce(t, d, fmt.Sprintf("out%d", i), tc.ownSession, tc.group) })
			}
		})
	}
}

// plainParent runs its arguments as a child in its own process group, in
// a session of its own (no terminal, whatever this test has), writes the
// child's pid to $PIDFILE, takes no SIGINT itself, and exits with the
// child's status.
const plainParent = `my $p = fork; die "fork: $!" unless defined $p;
if (!$p) { exec @ARGV or die "exec: $!" }
$SIG{INT} = "IGNORE"; open(F, ">", $ENV{PIDFILE}) or die; print F $p; close F;
waitpid($p, 0); exit($? >> 8);`

func interruptOnce(t *testing.T, d *clitest.Daemon, dir string, ownSession, group bool) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	// Into a directory: Landlock makes nothing new at a project's root.
	if err := os.MkdirAll(filepath.Join(d.Workspace, dir), 0o755); err != nil {
		t.Fatal(err)
	}
	// perl counts every SIGINT delivered (its handler runs per signal), where
	// a shell's trap would fold two close together into one.
	script := `$n = 0; $SIG{INT} = sub { $n++ }; open(F, ">", "` + dir + `/ready") or die; close F;
select(undef, undef, undef, 0.05) until $n; select(undef, undef, undef, 0.5); print "INTS=$n\n"; exit 9;`
	run := []string{d.Bin, "--data", d.Data, "run", "--workspace", d.Workspace, "--", "perl", "-e", script}
	pidFile := filepath.Join(t.TempDir(), "pid")
	if !ownSession {
		run = append([]string{"perl", "-e", plainParent}, run...)
	}
	// A session of its own either way: no terminal reaches it.
	cmd := exec.CommandContext(ctx, run[0], run[1:]...)
	cmd.Env = append(d.Env(), "PIDFILE="+pidFile)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitfor.For(t, 30*time.Second, "the agent to start", func() bool {
		_, err := os.Stat(filepath.Join(d.Workspace, dir, "ready"))
		return err == nil
	})
	pgid, target := cmd.Process.Pid, cmd.Process.Pid
	if !ownSession {
		b, err := os.ReadFile(pidFile)
		if err != nil {
			t.Fatal(err)
		}
		if target, err = strconv.Atoi(string(b)); err != nil {
			t.Fatal(err)
		}
	}
	if group {
		target = -pgid
	}
	if err := syscall.Kill(target, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	code := cmd.ProcessState.ExitCode()
	if ctx.Err() != nil || code != 9 || !strings.Contains(out.String(), "INTS=1\n") {
		t.Fatalf("after SIGINT to %d: exit %d (%v), want the agent's 9 after one SIGINT\nstdout:\n%s\nstderr:\n%s", target, code, err, out.String(), errb.String())
	}
}
