//go:build integration

package bwrap

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// Tools that need a terminal (script, python's pty, some test runners)
// get pseudo-terminals from a devpts instance of the sandbox's own, which
// shows none of the host's.
func TestPseudoTerminals(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Fatalf("script (util-linux) is required for this test: %v", err)
	}
	ctx := t.Context()
	s := openSession(t, sandbox.SessionSpec{ID: "pty", Workspaces: []string{t.TempDir()}})
	run := func(argv ...string) string {
		t.Helper()
		r, err := s.Run(ctx, sandbox.Spec{Argv: argv, Env: []string{"PATH=/usr/bin:/bin"}, Limits: sandbox.DefaultLimits()})
		out := string(r.Stdout) + string(r.Stderr)
		if err != nil || r.ExitCode != 0 {
			t.Fatalf("%v: exit %d err %v\n%s", argv, r.ExitCode, err, out)
		}
		return out
	}
	if out := run("script", "-qec", "tty", "/dev/null"); !strings.HasPrefix(strings.TrimSpace(out), "/dev/pts/") {
		t.Fatalf("tty under script printed %q, want a /dev/pts name", out)
	}
	if out := strings.Fields(run("ls", "-A", "/dev/pts")); len(out) != 1 || out[0] != "ptmx" {
		t.Fatalf("/dev/pts in the sandbox lists %v, want only its own ptmx", out)
	}
}
