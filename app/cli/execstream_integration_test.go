//go:build integration

package cli_test

import (
	"bytes"
	"context"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// clearedLine has the hook clear an agent's Bash command and returns the
// line the agent's shell then runs.
func clearedLine(t *testing.T, d *clitest.Daemon, session, command string) string {
	t.Helper()
	out, _, code := hookRun(t, d.Bin, d.Data, "claude", preToolUse(session, "Bash", map[string]any{"command": command}, d.Workspace))
	dec, reason, input := claudeDecision(t, out)
	line, _ := input["command"].(string)
	if code != 0 || dec != "allow" || !strings.Contains(line, " exec ") {
		t.Fatalf("the hook did not clear %q: exit %d %s %s", command, code, dec, reason)
	}
	return line
}

// TestExecStreamsOutput: a command the hook cleared shows its output as it
// runs (a long build's progress, a background server's first lines), not
// only when it ends; what streams is redacted, a secret cut between two
// writes included; a stream longer than the capture keeps its head and
// its end with a marker between, as the result would; and the agent
// giving up on the command stops it.
func TestExecStreamsOutput(t *testing.T) {
	d := clitest.Start(t)

	// The command waits long after its first line: only a streamed answer
	// shows that line while it waits.
	line := clearedLine(t, d, "s1", "echo first; printf 'tok=ghp_'; sleep 0.3; printf 'abcdefghijklmnopqrstuvwxyz0123456789AB\\n'; sleep 120; echo second")
	cmd := exec.Command("bash", "-c", line)
	cmd.Dir, cmd.Env = d.Workspace, d.Env()
	var out clitest.LockedBuffer
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	clitest.WaitFor(t, 60*time.Second, "the command's first lines while it runs", func() bool {
		return strings.Contains(out.String(), "tok=[REDACTED")
	})
	got := out.String()
	if !strings.HasPrefix(got, "first\n") || strings.Contains(got, "ghp_") || strings.Contains(got, "second") {
		t.Fatalf("streamed output: %q", got)
	}
	// The agent gives up on it (its interrupt, its timeout): the command ends too.
	syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
			t.Errorf("interrupted: %v, want exit 130 as a shell gives; stderr %q", err, errb.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("gatehouse exec did not end on an interrupt")
	}
	clitest.WaitFor(t, 60*time.Second, "the daemon to stop the command", func() bool {
		for _, e := range d.Events("kind=exec.finished") {
			return e != nil
		}
		return false
	})

	// A stream past the capture's 1 MiB: it streams whole up to there,
	// then a line now and then while the command runs (a long build
	// still shows where it is), then its end as the result keeps it.
	line = clearedLine(t, d, "s1", "seq 1 400000; sleep 3; echo after-the-limit; sleep 120; echo never")
	cmd = exec.Command("bash", "-c", line)
	cmd.Dir, cmd.Env = d.Workspace, d.Env()
	out = clitest.LockedBuffer{}
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done = make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	clitest.WaitFor(t, 60*time.Second, "a line past the limit while the command runs", func() bool {
		return strings.Contains(out.String(), "\nafter-the-limit\n")
	})
	syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
	<-done
	got = out.String()
	if !strings.HasPrefix(got, "1\n2\n") || !strings.Contains(got, "[gatehouse: the output passed 1 MiB") || len(got) > 1<<20+64<<10 {
		t.Fatalf("long output: %d bytes, starts %q", len(got), got[:min(len(got), 20)])
	}

	// One that ends: its end comes after the samples, as the capture kept it.
	line = clearedLine(t, d, "s1", "seq 1 400000")
	got, errOut, code := runLine(t, d, line)
	if code != 0 || !strings.HasPrefix(got, "1\n2\n") || !strings.HasSuffix(got, "\n399999\n400000\n") ||
		!strings.Contains(got, "bytes in all; the last 262144 follow]") || len(got) > 1<<20+256<<10+64<<10 {
		t.Fatalf("long output: exit %d, %d bytes, starts %q ends %q; stderr %q", code, len(got), got[:min(len(got), 20)], got[max(0, len(got)-20):], errOut)
	}
}

// TestExecSaysWhenTheDaemonStops: a daemon that dies while a command
// streams leaves the agent one sentence that says what is unknown and
// what to do, and the status of a command Gatehouse could not finish.
func TestExecSaysWhenTheDaemonStops(t *testing.T) {
	d := clitest.Start(t)
	line := clearedLine(t, d, "s1", "echo first; sleep 120")
	cmd := exec.Command("bash", "-c", line)
	cmd.Dir, cmd.Env = d.Workspace, d.Env()
	var out, errb clitest.LockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	clitest.WaitFor(t, 60*time.Second, "the command's first line", func() bool { return strings.Contains(out.String(), "first\n") })
	d.Kill()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 126 || !strings.Contains(errb.String(), "stopped answering before the command ended") {
			t.Errorf("exec after the daemon died: %v, stderr %q", err, errb.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("gatehouse exec did not end when the daemon died")
	}
}

// TestMCPRunReportsProgress: an MCP client that asks for progress hears,
// while run_command runs, the latest line the command printed (redacted),
// so it can show it, and a client that gives up on a silent call (Claude
// Code's idle timeout) hears that the command still runs.
func TestMCPRunReportsProgress(t *testing.T) {
	d := clitest.Start(t)
	var mu sync.Mutex
	var heard []string
	c := mcp.NewClient(&mcp.Implementation{Name: "progress", Version: "1.0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			heard = append(heard, req.Params.Message)
			mu.Unlock()
		},
	})
	s, err := c.Connect(t.Context(), d.MCPTransport(), &mcp.ClientSessionOptions{ProtocolVersion: clitest.StatefulProtocol})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"argv": []string{"sh", "-c",
			"echo compiling step-one; echo token ghp_abcdefghijklmnopqrstuvwxyz0123456789AB; sleep 120"}}}
		params.SetProgressToken("build-1")
		_, err := s.CallTool(ctx, params)
		done <- err
	}()
	clitest.WaitFor(t, 60*time.Second, "progress naming the command's latest line", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.ContainsFunc(heard, func(m string) bool { return strings.Contains(m, "token [REDACTED") })
	})
	mu.Lock()
	for _, m := range heard {
		if strings.Contains(m, "ghp_") {
			t.Errorf("a progress message holds the secret: %q", m)
		}
	}
	mu.Unlock()
	// The client gives up on the call (the person's Esc): the command
	// stops with it.
	cancel()
	<-done
	clitest.WaitFor(t, 60*time.Second, "the command to stop with its call", func() bool {
		return len(d.Events("kind=exec.finished")) > 0
	})
}

// TestKillReachesAStalledStream: an agent that stops reading its
// command's output (suspended with Ctrl-Z) does not keep the kill switch
// from ending the command: the daemon gives up on the stream, not on
// the kill.
func TestKillReachesAStalledStream(t *testing.T) {
	d := clitest.Start(t)
	// Control bytes: each takes six in the JSON the stream is sent in, so
	// the connection fills long before the capture stops passing output on.
	line := clearedLine(t, d, "s1", "for fd in 1 2; do head -c 3000000 /dev/zero | tr '\\000' '\\001' >&$fd; done; sleep 120")
	cmd := exec.Command("bash", "-c", line)
	cmd.Dir, cmd.Env = d.Workspace, d.Env()
	out, err := cmd.StdoutPipe() // read by nobody: the agent has stopped
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	clitest.WaitFor(t, 60*time.Second, "the command to start", func() bool {
		return len(d.Events("kind=exec.started")) > 0
	})
	syscall.Kill(-cmd.Process.Pid, syscall.SIGSTOP)
	if o, e, code := d.CLI(t.Context(), "kill", "--reason", "test"); code != 0 {
		t.Fatalf("kill: %s %s", o, e)
	}
	clitest.WaitFor(t, 60*time.Second, "the killed command's call to finish", func() bool {
		return len(d.Events("kind=exec.finished")) > 0
	})
}
