//go:build integration

package cli_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

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

// TestRunPassesOnAnInterruptSentToItAlone: a SIGINT sent to `gatehouse
// run`'s pid alone, as an IDE or a process manager that started it as a
// plain child stops it, reaches the agent, as a terminal's Ctrl-C does;
// the run ends with the agent's own status. Here `gatehouse run` is in a
// process group it does not lead, with no terminal.
func TestRunPassesOnAnInterruptSentToItAlone(t *testing.T) {
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			d := startRunDaemon(t, backend, "")
			leader := exec.Command("sleep", "120")
			leader.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := leader.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { leader.Process.Kill(); leader.Wait() })
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			// Into a directory: Landlock makes nothing new at a project's root.
			if err := os.MkdirAll(filepath.Join(d.Workspace, "out"), 0o755); err != nil {
				t.Fatal(err)
			}
			script := `trap 'echo GOT-INT; exit 9' INT; echo up > out/ready; while :; do sleep 0.1; done`
			cmd := exec.CommandContext(ctx, d.Bin, "--data", d.Data, "run", "--workspace", d.Workspace, "--", "sh", "-c", script)
			cmd.Env = d.Env()
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: leader.Process.Pid}
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitfor.For(t, 30*time.Second, "the agent to start", func() bool {
				_, err := os.Stat(filepath.Join(d.Workspace, "out", "ready"))
				return err == nil
			})
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			code := cmd.ProcessState.ExitCode()
			if ctx.Err() != nil || code != 9 || !strings.Contains(out.String(), "GOT-INT") {
				t.Fatalf("after SIGINT to gatehouse run: exit %d (%v), want the agent's 9 from its trap\nstdout:\n%s\nstderr:\n%s", code, err, out.String(), errb.String())
			}
		})
	}
}
