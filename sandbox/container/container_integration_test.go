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
	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

// Close removes the container, and the calls of a session with a helper
// leave nothing in the workspace, not even while it is open.
func TestCloseRemovesContainer(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	b := podmanBackend(ctx, t, testOptions("", launchtest.StaticHelper(t)))
	ws := t.TempDir()
	s, err := b.Open(ctx, sandbox.SessionSpec{ID: "close-test", Workspaces: []string{ws}})
	if err != nil {
		t.Fatal(err)
	}
	name, runDir := s.(*session).name, s.(*session).runDir
	if runDir == "" {
		t.Fatal("no helper ready for calls: every call would pay for a CLI exec")
	}
	// The first call goes to the helper started at Open, the second to
	// the one started after the first; both see their own stdin.
	for i, in := range []string{"hi", "there"} {
		r, err := s.Run(ctx, sandbox.Spec{Argv: []string{"sh", "-c", "cat > out.txt; cat out.txt; echo err >&2; exit 3"}, Stdin: strings.NewReader(in)})
		if err != nil || string(r.Stdout) != in || string(r.Stderr) != "err\n" || r.ExitCode != 3 {
			t.Fatalf("run %d: %v exit %d %q %q", i, err, r.ExitCode, r.Stdout, r.Stderr)
		}
	}
	if _, err := s.Run(ctx, sandbox.Spec{Argv: []string{"no-such-program"}}); !errors.Is(err, sandbox.ErrNotFound) {
		t.Errorf("missing program: %v", err)
	}
	// Podman keeps a record per exec session; finished ones are removed,
	// so a long session does not pile them up (the ready one remains).
	var ids string
	waitfor.Until(10*time.Second, 100*time.Millisecond, func() bool {
		out, _ := b.command(ctx, "inspect", name, "--format", "{{len .ExecIDs}}").Output()
		ids = strings.TrimSpace(string(out))
		return ids == "1"
	})
	if ids != "1" {
		t.Errorf("podman holds %s exec sessions after 3 calls, want only the ready one", ids)
	}
	// The ready helper's socket took its one connection and is gone, so
	// nothing a call leaves behind in the container can dial in to take
	// the next call: the container sees an empty directory.
	r, err := s.Run(ctx, sandbox.Spec{Argv: []string{"ls", "-A", "/.gatehouse-run"}})
	if err != nil || r.ExitCode != 0 || len(strings.TrimSpace(string(r.Stdout))) != 0 {
		t.Errorf("shared run directory seen from the container: %v exit %d %q %q", err, r.ExitCode, r.Stdout, r.Stderr)
	}
	if _, err := os.Lstat(filepath.Join(ws, ".mcp.json")); err == nil {
		t.Errorf("a placeholder in the workspace of a session whose calls go through a helper")
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if out, _ := b.command(ctx, "ps", "-a", "--filter", "name="+name, "--format", "{{.Names}}").Output(); strings.Contains(string(out), name) {
		t.Errorf("container %s still exists", name)
	}
	ents, _ := os.ReadDir(ws)
	for _, e := range ents {
		if e.Name() != "out.txt" {
			t.Errorf("left behind in the workspace: %s", e.Name())
		}
	}
	if _, err := s.Run(ctx, sandbox.Spec{Argv: []string{"true"}}); err != sandbox.ErrClosed {
		t.Errorf("run after close: %v", err)
	}
	if _, err := os.Stat(runDir); !os.IsNotExist(err) {
		t.Errorf("shared run directory left behind: %v", err)
	}
}

// Sweep removes the containers a crashed daemon of the same owner left,
// and leaves another owner's alone.
func TestSweepRemovesOrphans(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	mine := podmanBackend(ctx, t, testOptions("sweep-test-mine", ""))
	theirs, _ := New(ctx, testOptions("sweep-test-theirs", ""))
	orphan, err := mine.Open(ctx, sandbox.SessionSpec{ID: "orphan", Workspaces: []string{t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	other, err := theirs.Open(ctx, sandbox.SessionSpec{ID: "other", Workspaces: []string{t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	// A restarted daemon of the same owner: a fresh backend sweeps.
	again, _ := New(ctx, testOptions("sweep-test-mine", ""))
	n, err := again.Sweep(ctx)
	if err != nil || n != 1 {
		t.Fatalf("Sweep = %d, %v; want 1 orphan removed", n, err)
	}
	exists := func(name string) bool {
		out, _ := mine.command(ctx, "ps", "-a", "--filter", "name="+name, "--format", "{{.Names}}").Output()
		return strings.Contains(string(out), name)
	}
	if exists(orphan.(*session).name) {
		t.Fatal("the orphan survived the sweep")
	}
	if !exists(other.(*session).name) {
		t.Fatal("the sweep removed another owner's container")
	}
	_ = orphan.Close(ctx)
}

// Without Gatehouse's static helper, calls go through the CLI's exec,
// which nothing supervises: the container holds placeholders at the
// missing protected names while the session is open (creating one
// fails), and Close takes them back.
func TestWithoutHelperPlaceholders(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	b := podmanBackend(ctx, t, testOptions("", ""))
	ws := t.TempDir()
	s, err := b.Open(ctx, sandbox.SessionSpec{ID: "no-helper", Workspaces: []string{ws}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(ws, ".mcp.json")); err != nil {
		t.Errorf("no placeholder while the session is open: %v", err)
	}
	r, err := s.Run(ctx, sandbox.Spec{Argv: []string{"sh", "-c", "echo x > .mcp.json/x 2>/dev/null || echo refused; echo x > .mcp.json 2>/dev/null || echo refused"}, Dir: ws})
	if err != nil || string(r.Stdout) != "refused\nrefused\n" {
		t.Errorf("creating at a placeholder: %v %q %q", err, r.Stdout, r.Stderr)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(ws); len(ents) != 0 {
		t.Errorf("left behind in the workspace: %v", ents)
	}
}

// A volume would follow a protected link on the host (mounting whatever it
// points to) and leave the link replaceable, so the container backend
// refuses such a workspace with a sentence that says what to do.
func TestProtectedSymlinkRefused(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	b, err := New(ctx, testOptions("", launchtest.StaticHelper(t)))
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

// testOptions are the podman flags this kind of machine needs and the
// test image, as containertest gives them to tests outside this package,
// with owner and helper (none when "").
func testOptions(owner, helper string) Options {
	return Options{
		CLI: "podman", Image: "localhost/gatehouse-busybox:test", Owner: owner, Helper: helper,
		GlobalArgs: []string{"--runtime", "runc", "--cgroup-manager=cgroupfs"},
		RunArgs:    []string{"--ulimit", "nofile=4096:4096", "--ulimit", "nproc=4096:4096"},
	}
}

// podmanBackend is a backend with o once the test image is built.
func podmanBackend(ctx context.Context, t *testing.T, o Options) *Backend {
	t.Helper()
	bb, err := exec.LookPath("busybox")
	if err != nil {
		t.Fatalf("busybox is required (apt install busybox-static): %v", err)
	}
	b, err := New(ctx, o)
	if err != nil {
		t.Fatalf("podman backend: %v", err)
	}
	if err := b.BuildBusyboxImage(ctx, bb, o.Image); err != nil {
		t.Fatal(err)
	}
	return b
}
