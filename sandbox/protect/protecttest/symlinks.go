// Package protecttest holds the checks on protected names that each
// sandbox backend's tests run through a real sandbox.
package protecttest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// Symlinks checks that a protected name which is a symbolic link stays
// what it is: a command in the sandbox can neither remove, rename nor
// replace the link, nor write through it, and a link pointing outside the
// sandbox's view (or nowhere) does not stop commands from running.
func Symlinks(t *testing.T, b sandbox.Backend) {
	t.Helper()
	ctx := context.Background()
	ws := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(ws, "cfg", "claude"), 0o755))
	must(os.WriteFile(filepath.Join(ws, "cfg", "claude", "settings.json"), []byte("orig"), 0o644))
	must(os.Symlink("cfg/claude", filepath.Join(ws, ".claude")))
	must(os.Symlink(t.TempDir(), filepath.Join(ws, ".vscode"))) // outside the sandbox's view
	must(os.Symlink("nowhere", filepath.Join(ws, ".idea")))     // dangling
	s, err := b.Open(ctx, sandbox.SessionSpec{ID: "links", Workspaces: []string{ws}})
	must(err)
	defer s.Close(ctx)
	script := `rm -f .claude; mv .claude moved; rm -rf .vscode .idea; ln -sfn cfg .claude; ` +
		`mkdir .claude/x; echo evil > .claude/settings.json; echo evil > cfg/claude/settings.json; echo ran`
	r, err := s.Run(ctx, sandbox.Spec{Argv: []string{"sh", "-c", script}, Dir: ws, Env: []string{"PATH=/usr/bin:/bin"}, Limits: sandbox.DefaultLimits()})
	if err != nil || r.ExitCode != 0 || string(r.Stdout) != "ran\n" {
		t.Fatalf("run: exit %d err %v\n%s%s", r.ExitCode, err, r.Stdout, r.Stderr)
	}
	t.Logf("refusals:\n%s", r.Stderr)
	for name, target := range map[string]string{".claude": "cfg/claude", ".idea": "nowhere"} {
		if got, err := os.Readlink(filepath.Join(ws, name)); err != nil || got != target {
			t.Errorf("%s after the run: %q %v, want a link to %s", name, got, err, target)
		}
	}
	if st, err := os.Lstat(filepath.Join(ws, ".vscode")); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf(".vscode after the run: %v %v", st, err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "cfg", "claude", "settings.json")); string(b) != "orig" {
		t.Errorf("the link's target was written: %q", b)
	}
	for _, p := range []string{"moved", "cfg/claude/x"} {
		if _, err := os.Lstat(filepath.Join(ws, p)); err == nil {
			t.Errorf("%s exists after the run", p)
		}
	}
}
