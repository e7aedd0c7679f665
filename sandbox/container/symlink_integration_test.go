//go:build integration

package container

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/launch/launchtest"
)

// A volume would follow a protected link on the host (mounting whatever it
// points to) and leave the link replaceable, so the container backend
// refuses such a workspace with a sentence that says what to do.
func TestProtectedSymlinkRefused(t *testing.T) {
	if _, err := exec.LookPath("podman"); err != nil {
		t.Fatalf("podman is required: %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	b, err := New(ctx, Options{
		CLI: "podman", Image: "localhost/gatehouse-busybox:test",
		GlobalArgs: []string{"--runtime", "runc", "--cgroup-manager=cgroupfs"},
		Helper:     launchtest.StaticHelper(t),
	})
	if err != nil {
		t.Fatalf("podman backend: %v", err)
	}
	ws := t.TempDir()
	if err := os.Symlink(t.TempDir(), filepath.Join(ws, ".claude")); err != nil {
		t.Fatal(err)
	}
	s, err := b.Open(ctx, sandbox.SessionSpec{ID: "links", Workspaces: []string{ws}})
	if err == nil {
		s.Close(ctx)
		t.Fatal("a workspace whose .claude is a symbolic link was opened")
	}
	if !errors.Is(err, sandbox.ErrBadSpec) || !strings.Contains(err.Error(), ".claude is a symbolic link") || !strings.Contains(err.Error(), "use the bwrap or landlock backend") {
		t.Fatalf("error: %v", err)
	}
}
