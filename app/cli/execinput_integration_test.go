//go:build integration

package cli_test

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// TestExecPassesOnTypedInput: a command the hook cleared reads what is
// typed on the terminal the agent ran it on (Codex's tty sessions, Gemini
// CLI's interactive shell), as it would without Gatehouse: line by line
// while it runs, its end with Ctrl-D, and from a pipe as well. A command
// that reads nothing ends without waiting for input, and nothing typed is
// recorded.
func TestExecPassesOnTypedInput(t *testing.T) {
	d := clitest.Start(t)

	t.Run("terminal", func(t *testing.T) {
		line := clearedLine(t, d, "in1", `echo ready; read -r a; [ "$a" = "pass""phrase-typed" ] && echo got-the-line; cat; echo after-cat`)
		master, out, done := execOnTerminal(t, d, line)
		clitest.WaitFor(t, time.Minute, "the command to start", func() bool { return strings.Contains(out.String(), "ready") })
		if _, err := master.Write([]byte("passphrase-typed\r")); err != nil {
			t.Fatal(err)
		}
		clitest.WaitFor(t, time.Minute, "the command to read the typed line", func() bool { return strings.Contains(out.String(), "got-the-line") })
		if _, err := master.Write([]byte("more\r\x04")); err != nil {
			t.Fatal(err)
		}
		exitsCleanly(t, done, out, "Ctrl-D did not end the command's input")
		clitest.WaitFor(t, time.Minute, "the rest, read up to Ctrl-D", func() bool { return strings.Contains(out.String(), "more\r\nafter-cat") })
		for _, e := range d.Events("") {
			if b, _ := json.Marshal(e); bytes.Contains(b, []byte("passphrase-typed")) {
				t.Errorf("what was typed was recorded: %s", b)
			}
		}
	})

	t.Run("reads nothing", func(t *testing.T) {
		// The terminal stays open and nobody types: the command's end is
		// the end.
		line := clearedLine(t, d, "in2", "echo no-input-needed")
		_, out, done := execOnTerminal(t, d, line)
		exitsCleanly(t, done, out, "gatehouse exec waited for input the command never read")
		clitest.WaitFor(t, time.Minute, "its output", func() bool { return strings.Contains(out.String(), "no-input-needed") })
	})

	t.Run("pipe", func(t *testing.T) {
		line := clearedLine(t, d, "in3", `echo ready; while read -r l; do echo "line:$l"; done; echo end-of-input`)
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("bash", "-c", line)
		cmd.Dir, cmd.Env = d.Workspace, d.Env()
		var out clitest.LockedBuffer
		cmd.Stdin, cmd.Stdout, cmd.Stderr = r, &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		r.Close()
		clitest.WaitFor(t, time.Minute, "the command to start", func() bool { return strings.Contains(out.String(), "ready") })
		io.WriteString(w, "one\n")
		clitest.WaitFor(t, time.Minute, "the first line to arrive while the command runs", func() bool { return strings.Contains(out.String(), "line:one") })
		io.WriteString(w, "two\n")
		w.Close()
		if err := cmd.Wait(); err != nil {
			t.Fatalf("gatehouse exec: %v\n%s", err, out.String())
		}
		if got := out.String(); !strings.Contains(got, "line:two\nend-of-input") {
			t.Errorf("output %q", got)
		}
	})
}

// execOnTerminal runs line (a cleared `gatehouse exec` line) with bash on
// a terminal of its own, in the foreground, as Codex runs a tty session.
func execOnTerminal(t *testing.T, d *clitest.Daemon, line string) (master *os.File, out *clitest.LockedBuffer, done chan error) {
	t.Helper()
	master, tty := openPTY(t)
	cmd := exec.Command("bash", "-c", line)
	cmd.Dir, cmd.Env = d.Workspace, d.Env()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	out = &clitest.LockedBuffer{}
	go func() { _, _ = io.Copy(out, master) }()
	done = make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	return master, out, done
}

// exitsCleanly waits for a `gatehouse exec` started by execOnTerminal to
// exit 0; late says what it means when it does not end.
func exitsCleanly(t *testing.T, done chan error, out *clitest.LockedBuffer, late string) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("gatehouse exec: %v\n%s", err, out.String())
		}
	case <-time.After(time.Minute):
		t.Fatalf("%s:\n%s", late, out.String())
	}
}

// TestExecMovesTheShellOnEveryBackend: the directory a cleared command's
// shell ends in reaches Claude Code's shell on each backend (each shows
// the session's temporary directory its own way), and a command that made
// the directory it moved to, staged, finds it there once it landed. (The
// container's test image is busybox's, with no bash to run the hook's
// commands with; its /tmp is the session's as bwrap's is.)
func TestExecMovesTheShellOnEveryBackend(t *testing.T) {
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			d := startRunDaemon(t, backend, "")
			// Landlock lets no command add to the workspace's top.
			if err := os.Mkdir(filepath.Join(d.Workspace, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			line := clearedLine(t, d, "cd-"+backend, "cd sub && mkdir -p deep/er && cd deep/er")
			// As Claude Code runs it: eval'd, then its directory recorded.
			cmd := exec.Command("bash", "-c", `eval "$LINE" && pwd -P`)
			cmd.Dir, cmd.Env = d.Workspace, append(d.Env(), "LINE="+line)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			want, _ := filepath.EvalSymlinks(filepath.Join(d.Workspace, "sub", "deep", "er"))
			if strings.TrimSpace(string(out)) != want {
				t.Errorf("the shell ended in %q, want %s", out, want)
			}
		})
	}
}
