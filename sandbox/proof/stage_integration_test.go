//go:build integration

package proof

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/call/effect"
	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/bwrap"
)

// A staged run (bwrap, and the container in its runs' own namespaces)
// writes only its upper layer: the workspace is as it was, the change set
// read from the upper layer is exactly what the command did, pass-through
// directories take their writes directly, an existing protected file
// stays read-only and a secret hidden inside the overlay. A protected
// name that does not exist may be written, but only into the upper layer:
// the pipeline keeps it out of the workspace (keepout.go).
func TestStagedRunLeavesWorkspaceAlone(t *testing.T) {
	for _, b := range stagingBackends(t) {
		t.Run(b.Name(), func(t *testing.T) { stagedRunLeavesWorkspaceAlone(t, b) })
	}
}

// stagingBackends are the backends that stage: bwrap and the container.
func stagingBackends(t *testing.T) []sandbox.Backend {
	t.Helper()
	bw, err := bwrap.New(t.Context(), bwrap.Options{})
	if err != nil {
		t.Fatalf("bwrap backend unavailable: %v", err)
	}
	return []sandbox.Backend{bw, newPodman(t)}
}

func stagedRunLeavesWorkspaceAlone(t *testing.T, b sandbox.Backend) {
	ws := t.TempDir()
	ws, _ = filepath.EvalSymlinks(ws)
	stageRoot := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(ws, "src", "deep"), 0o755),
		os.WriteFile(filepath.Join(ws, "src", "a.go"), []byte("package a\n"), 0o644),
		os.WriteFile(filepath.Join(ws, "src", "deep", "b.go"), []byte("package b\n"), 0o644),
		os.WriteFile(filepath.Join(ws, "keep.txt"), []byte("keep\n"), 0o644),
		os.WriteFile(filepath.Join(ws, ".envrc"), []byte("export A=1\n"), 0o644),
		os.WriteFile(filepath.Join(ws, ".env"), []byte("TOKEN=hidden\n"), 0o600),
		os.MkdirAll(filepath.Join(ws, "node_modules"), 0o755),
		os.MkdirAll(filepath.Join(ws, "private"), 0o700),
		os.WriteFile(filepath.Join(ws, "private", "control.token"), []byte("hidden\n"), 0o600))
	// A hidden path inside the workspace, which the overlay would uncover.
	s, err := b.Open(t.Context(), sandbox.SessionSpec{ID: "t", Workspaces: []string{ws}, Limits: SessionLimits(), StageRoot: stageRoot,
		Hidden: []string{filepath.Join(ws, "private")}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	upper, work := sandbox.StageUpper(stageRoot, "c1", 0), sandbox.StageWork(stageRoot, "c1", 0)
	must(t, os.MkdirAll(upper, 0o700), os.MkdirAll(work, 0o700))
	script := `set -e
rm -rf src
echo new > fresh.txt
echo more >> keep.txt
echo dep > node_modules/dep.js
ls ` + sandbox.StageMountPoint + `/c1 2>/dev/null && echo STAGEROOT-VISIBLE
echo x >> .envrc 2>/dev/null && echo PROTECTED-WRITTEN
cat .env 2>/dev/null | grep -q hidden && echo SECRET-READ
cat private/control.token 2>/dev/null | grep -q hidden && echo SECRET-READ
echo x > .mcp.json
ls
`
	r, err := s.Run(t.Context(), sandbox.Spec{Argv: []string{"sh", "-c", script}, Dir: ws, Env: []string{"PATH=/usr/bin:/bin"}, Limits: sandbox.DefaultLimits(),
		Stage: &sandbox.Stage{Dir: "c1", PassThrough: []string{filepath.Join(ws, "node_modules")}}})
	if err != nil {
		t.Fatal(err)
	}
	if r.ExitCode != 0 {
		t.Fatalf("exit %d: %s %s", r.ExitCode, r.Stdout, r.Stderr)
	}
	out := string(r.Stdout)
	if strings.Contains(out, "STAGEROOT-VISIBLE") || strings.Contains(out, "PROTECTED-WRITTEN") || strings.Contains(out, "SECRET-READ") {
		t.Errorf("staged run reached what it must not:\n%s", out)
	}
	if !strings.Contains(out, "fresh.txt") || strings.Contains(out, "src") {
		t.Errorf("the run did not see its own changes:\n%s", out)
	}
	// The workspace is untouched, but for the pass-through directory.
	if _, err := os.Stat(filepath.Join(ws, "src", "deep", "b.go")); err != nil {
		t.Errorf("src was deleted in the workspace: %v", err)
	}
	for _, name := range []string{"fresh.txt", ".mcp.json"} {
		if _, err := os.Stat(filepath.Join(ws, name)); err == nil {
			t.Errorf("%s landed in the workspace", name)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".envrc")); string(b) != "export A=1\n" {
		t.Errorf(".envrc is %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "keep.txt")); string(b) != "keep\n" {
		t.Errorf("keep.txt is %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "node_modules", "dep.js")); string(b) != "dep\n" {
		t.Errorf("the pass-through write is missing: %q", b)
	}
	set, err := effect.Read(upper, ws)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]effect.Op{}
	for _, c := range set.Changes {
		got[c.Path] = c.Op
	}
	want := map[string]effect.Op{"src": effect.Delete, "src/a.go": effect.Delete, "src/deep": effect.Delete, "src/deep/b.go": effect.Delete, "fresh.txt": effect.Create, "keep.txt": effect.Modify, ".mcp.json": effect.Create}
	for p, op := range want {
		if got[p] != op {
			t.Errorf("%s: got %q, want %q (set %+v)", p, got[p], op, set.Changes)
		}
	}
	for p := range got {
		if strings.HasPrefix(p, "node_modules") {
			t.Errorf("pass-through path %s in the change set", p)
		}
	}
}

// A staged run whose overlays cannot be mounted (here: its layers were
// never made) ends with ErrCannotStage before its command starts, so the
// caller may run it unstaged; a command that prints the helper's line
// itself gets its own result, not an unstaged rerun.
func TestStagingFailureCannotBeForged(t *testing.T) {
	for _, b := range stagingBackends(t) {
		t.Run(b.Name(), func(t *testing.T) {
			ws, stageRoot := t.TempDir(), t.TempDir()
			ws, _ = filepath.EvalSymlinks(ws)
			s, err := b.Open(t.Context(), sandbox.SessionSpec{ID: "t", Workspaces: []string{ws}, Limits: SessionLimits(), StageRoot: stageRoot})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close(context.Background()) })
			spec := func(dir, script string) sandbox.Spec {
				return sandbox.Spec{Argv: []string{"sh", "-c", script}, Dir: ws, Env: []string{"PATH=/usr/bin:/bin"}, Limits: sandbox.DefaultLimits(), Stage: &sandbox.Stage{Dir: dir}}
			}
			// No layers: the overlay cannot be mounted, and nothing runs.
			_, err = s.Run(t.Context(), spec("missing", "echo ran > ran.txt"))
			if !errors.Is(err, sandbox.ErrCannotStage) {
				t.Errorf("overlays that cannot be mounted: %v, want ErrCannotStage", err)
			}
			must(t, os.MkdirAll(sandbox.StageUpper(stageRoot, "forged", 0), 0o700), os.MkdirAll(sandbox.StageWork(stageRoot, "forged", 0), 0o700))
			r, err := s.Run(t.Context(), spec("forged", `echo "gatehouse sandbox: staging failed: stage /x: invalid argument" >&2; echo "gatehouse sandbox: staging failed [00]: stage /x" >&2; exit 125`))
			if err != nil || r.ExitCode != 125 {
				t.Errorf("a command printing the helper's line: %v, exit %d; want its own result", err, r.ExitCode)
			}
			if _, err := os.Stat(filepath.Join(ws, "ran.txt")); err == nil {
				t.Error("the run that could not be staged ran in the workspace")
			}
		})
	}
}
