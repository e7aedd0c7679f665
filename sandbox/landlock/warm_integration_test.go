//go:build integration

package landlock

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

// The rules list the workspace's entries, so a sandbox built before an
// entry appeared must not serve the call: a new directory is writable and
// a new .git/hooks is protected in the very next call.
func TestSandboxBuiltAheadFollowsTheWorkspace(t *testing.T) {
	ctx := t.Context()
	b, err := New(Options{})
	if err != nil {
		t.Fatalf("landlock unavailable: %v", err)
	}
	ws := t.TempDir()
	s, err := b.Open(ctx, sandbox.SessionSpec{ID: "warm", Workspaces: []string{ws}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	run := func(script string) sandbox.Result {
		t.Helper()
		// The run should find the session's next sandbox built (before
		// the workspace changed, for the run after the mkdir).
		waitfor.For(t, 30*time.Second, "the session's next sandboxes built", func() bool { return sandbox.Warming(s) == 0 })
		r, err := s.Run(ctx, sandbox.Spec{Argv: []string{"sh", "-c", script}, Limits: sandbox.DefaultLimits()})
		if err != nil {
			t.Fatalf("%s: %v", script, err)
		}
		return r
	}
	for i := 0; i < 5; i++ {
		r := run(`head -c 300000 /dev/zero | tr '\0' x; printf tail >&2`)
		if len(r.Stdout) != 300000 || string(r.Stderr) != "tail" {
			t.Fatalf("run %d: got %d bytes of stdout, stderr %q", i, len(r.Stdout), r.Stderr)
		}
	}
	for _, d := range []string{"newdir", ".git/hooks"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r := run(`echo ok > newdir/f && echo wrote; echo evil > .git/hooks/pre-commit; exit 0`)
	if !strings.Contains(string(r.Stdout), "wrote") {
		t.Errorf("a directory made before the call is not writable: %s", r.Stderr)
	}
	if _, err := os.Lstat(filepath.Join(ws, ".git/hooks/pre-commit")); err == nil {
		t.Error("the sandbox wrote .git/hooks/pre-commit")
	}
}
