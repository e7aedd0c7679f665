//go:build integration

package bwrap

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/proctree"
	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

// A sandbox built ahead of its call must protect what the workspace holds
// when the call arrives, hand the target no capabilities, leave nothing
// in the workspace while idle, and go away with its session.
func TestSandboxBuiltAheadOfItsCall(t *testing.T) {
	ctx := t.Context()
	b, err := New(ctx, Options{})
	if err != nil {
		t.Fatalf("bwrap backend unavailable: %v", err)
	}
	ws := t.TempDir()
	s, err := b.Open(ctx, sandbox.SessionSpec{ID: "warm", Workspaces: []string{ws}})
	if err != nil {
		t.Fatal(err)
	}
	run := func(script string) sandbox.Result {
		t.Helper()
		r, err := s.Run(ctx, sandbox.Spec{Argv: []string{"sh", "-c", script}, Limits: sandbox.DefaultLimits()})
		if err != nil {
			t.Fatalf("%s: %v", script, err)
		}
		return r
	}
	// Each call below should find the session's next sandbox waiting, as
	// a call after an agent's thinking time does.
	settle := func() {
		t.Helper()
		waitfor.For(t, 30*time.Second, "the session's next sandboxes built", func() bool { return sandbox.Warming(s) == 0 })
	}

	settle()
	r := run(`grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb)' /proc/self/status`)
	for _, line := range strings.Split(strings.TrimSpace(string(r.Stdout)), "\n") {
		if !strings.HasSuffix(line, "0000000000000000") {
			t.Errorf("target holds capabilities: %s", line)
		}
	}
	if !bytes.Contains(r.Stdout, []byte("CapBnd")) {
		t.Fatalf("no capability lines: %s %s", r.Stdout, r.Stderr)
	}

	// All the output arrives although the run returns before bwrap's
	// teardown lets go of the pipes.
	for i := 0; i < 5; i++ {
		r := run(`head -c 300000 /dev/zero | tr '\0' x; printf tail >&2`)
		if len(r.Stdout) != 300000 || string(r.Stderr) != "tail" {
			t.Fatalf("run %d: got %d bytes of stdout, stderr %q", i, len(r.Stdout), r.Stderr)
		}
	}

	// No call can make a repository (git would run its hooks on the
	// person's next command here); one made on the host while the next
	// sandbox waits is protected in it.
	settle()
	if r := run(`mkdir .git; git init -q 2>/dev/null; test -e .git || echo absent`); !bytes.Contains(r.Stdout, []byte("absent")) {
		t.Fatalf("a call made .git: %s %s", r.Stdout, r.Stderr)
	}
	settle()
	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A protected name made on the host while the next sandbox waits.
	if err := os.Mkdir(filepath.Join(ws, ".vscode"), 0o755); err != nil {
		t.Fatal(err)
	}
	run(`busybox umount -l .git/hooks 2>/dev/null; echo evil > .git/hooks/pre-commit; echo x > .vscode/tasks.json; echo x > .mcp.json; exit 0`)
	for _, p := range []string{".git/hooks/pre-commit", ".vscode/tasks.json", ".mcp.json"} {
		if _, err := os.Lstat(filepath.Join(ws, p)); err == nil {
			t.Errorf("the sandbox created %s", p)
		}
	}

	// Idle: no placeholders left for the user to trip over.
	settle()
	for _, p := range []string{".mcp.json", ".idea", ".bashrc"} {
		if _, err := os.Lstat(filepath.Join(ws, p)); err == nil {
			t.Errorf("placeholder %s left in the workspace while idle", p)
		}
	}

	helpers := func() int {
		n := 0
		pids, _ := proctree.Descendants(os.Getpid())
		for _, pid := range pids {
			if strings.Contains(strings.Join(proctree.Cmdline(pid), " "), helperPath(b.opts.Helper)) {
				n++
			}
		}
		return n
	}
	if helpers() == 0 {
		t.Error("no sandbox waiting for the next call")
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	waitfor.Until(5*time.Second, 20*time.Millisecond, func() bool { return helpers() == 0 })
	if n := helpers(); n > 0 {
		t.Errorf("%d sandbox processes outlived their session", n)
	}
}
