//go:build integration

package landlock

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// Landlock's documented shape: workspace subdirectories are writable,
// the workspace root is read-only (so missing protected names stay
// uncreatable), and the daemon's own process is never restricted.
func TestWorkspaceShape(t *testing.T) {
	ctx := t.Context()
	b, err := New(Options{})
	if err != nil {
		t.Fatalf("landlock unavailable: %v", err)
	}
	ws := t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := b.Open(ctx, sandbox.SessionSpec{ID: "t", Workspaces: []string{ws}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	r, err := s.Run(ctx, sandbox.Spec{Argv: []string{"sh", "-c", `echo ok > src/new.go && mkdir -p src/pkg/a && echo ok > src/pkg/a/b.go && cat src/new.go; echo x > root.txt; echo x > "$TMPDIR/t" && echo tmp-ok`}, Limits: sandbox.DefaultLimits()})
	if err != nil {
		t.Fatal(err)
	}
	if string(r.Stdout) != "ok\ntmp-ok\n" {
		t.Errorf("stdout %q stderr %q", r.Stdout, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(ws, "src", "pkg", "a", "b.go")); err != nil {
		t.Errorf("write in a subdirectory failed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws, "root.txt")); err == nil {
		t.Error("created a file in the workspace root")
	}
	// The daemon (this process) is not restricted by its children's rules.
	if err := os.WriteFile(filepath.Join(ws, "root.txt"), []byte("x"), 0o644); err != nil {
		t.Errorf("the test process itself got restricted: %v", err)
	}
}

// A command run by root keeps no capability: Landlock does not stop
// CAP_SYS_PTRACE reading another sandbox's environment, nor
// CAP_DAC_OVERRIDE or CAP_SYS_MODULE doing what they do.
func TestRootKeepsNoCapability(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("runs as root only: another user holds no capability to drop")
	}
	ctx := t.Context()
	b, err := New(Options{})
	if err != nil {
		t.Fatalf("landlock unavailable: %v", err)
	}
	s, err := b.Open(ctx, sandbox.SessionSpec{ID: "caps", Workspaces: []string{t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	r, err := s.Run(ctx, sandbox.Spec{Argv: []string{"grep", "^Cap", "/proc/self/status"}, Limits: sandbox.DefaultLimits()})
	if err != nil {
		t.Fatal(err)
	}
	want := "CapInh:\t0000000000000000\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\nCapAmb:\t0000000000000000\n"
	if string(r.Stdout) != want {
		t.Errorf("capabilities of a command run by root:\n%s(stderr %q)", r.Stdout, r.Stderr)
	}
}
