//go:build integration

package proof

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/container"
	"github.com/gatehouse-dev/gatehouse/sandbox/container/containertest"
	"github.com/gatehouse-dev/gatehouse/sandbox/launch/launchtest"
)

// The container, in a session with a stage root, runs each call in
// namespaces of its own: the agent sees the real workspace (no
// placeholder at a missing protected name, in a staged run or in one that
// only reads), nothing in /proc leads a staged run around its overlay to
// the workspace itself, and a run that is neither has its helper refuse
// the missing names, without a placeholder or a restart.
func TestContainerRunsSeeTheRealWorkspace(t *testing.T) {
	b := newPodman(t)
	ws := t.TempDir()
	ws, _ = filepath.EvalSymlinks(ws)
	stageRoot := t.TempDir()
	must(t, os.Mkdir(filepath.Join(ws, ".git"), 0o755), os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n"), 0o644))
	s, err := b.Open(t.Context(), sandbox.SessionSpec{ID: "nest", Workspaces: []string{ws}, Limits: SessionLimits(), StageRoot: stageRoot})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	if _, err := os.Lstat(filepath.Join(ws, ".envrc")); err == nil {
		t.Fatal("the session holds a placeholder in the workspace")
	}
	n := 0
	staged := func(sp *sandbox.Spec) {
		n++
		dir := "c" + string(rune('0'+n))
		must(t, os.MkdirAll(sandbox.StageUpper(stageRoot, dir, 0), 0o700), os.MkdirAll(sandbox.StageWork(stageRoot, dir, 0), 0o700))
		sp.Stage = &sandbox.Stage{Dir: dir}
		sp.Dir = ws
	}
	readOnly := func(sp *sandbox.Spec) { sp.ReadOnlyWorkspaces, sp.Dir = true, ws }

	const listing = ".git\nmain.go\n"
	for name, mod := range map[string]func(*sandbox.Spec){"staged": staged, "read-only": readOnly} {
		r := runSh(t, s, `ls -A; test -e .envrc && echo ENVRC-EXISTS; cat .mcp.json 2>/dev/null && echo MCP-READ; true`, mod)
		if string(r.Stdout) != listing || r.ExitCode != 0 {
			t.Errorf("%s run saw %q (exit %d, %s), want exactly the workspace %q", name, r.Stdout, r.ExitCode, r.Stderr, listing)
		}
	}
	r := runSh(t, s, `for f in x .envrc .git/hooks/pre-commit; do echo x > $f 2>/dev/null && echo WROTE-$f; done; mkdir d 2>/dev/null && echo MADE-DIR; true`, readOnly)
	if strings.Contains(string(r.Stdout), "WROTE") || strings.Contains(string(r.Stdout), "MADE") {
		t.Errorf("a read-only run wrote: %q", r.Stdout)
	}

	// Every process a run can see in /proc, and its parent's working
	// directory, would be the container's own view of the workspace.
	escape := `for p in /proc/[0-9]*; do [ $p = /proc/$$ ] && continue; echo x > $p/root` + ws + `/escaped 2>/dev/null && echo ROOT-$p; echo x > $p/cwd/escaped 2>/dev/null && echo CWD-$p; done
echo x > /proc/$PPID/cwd/escaped 2>/dev/null && echo PARENT-CWD
echo x > inside.txt; true`
	r = runSh(t, s, escape, staged)
	if strings.Contains(string(r.Stdout), "ROOT") || strings.Contains(string(r.Stdout), "CWD") {
		t.Errorf("a staged run reached past its overlay: %q %s", r.Stdout, r.Stderr)
	}
	if !strings.Contains(string(r.Stderr), "/proc/1/root") {
		t.Errorf("the run did not try the container's init: %s", r.Stderr)
	}
	for _, f := range []string{"escaped", "inside.txt"} {
		if _, err := os.Lstat(filepath.Join(ws, f)); err == nil {
			t.Errorf("%s landed in the workspace from a staged run", f)
		}
	}
	if _, err := os.Stat(filepath.Join(sandbox.StageUpper(stageRoot, "c"+string(rune('0'+n)), 0), "inside.txt")); err != nil {
		t.Errorf("the staged write is not in the upper layer: %v", err)
	}

	// A nested run is killed on time, with what it started.
	r = runSh(t, s, `sleep 30 & sleep 30`, func(sp *sandbox.Spec) { staged(sp); sp.Limits.Wall = time.Second })
	t.Logf("killed after %v", r.Duration)
	if !r.Killed || r.Duration > 15*time.Second {
		t.Errorf("a staged run outlived its wall limit: killed %v after %v", r.Killed, r.Duration)
	}
	if r := runSh(t, s, `ps -o comm | grep -c sleep; true`, readOnly); strings.TrimSpace(string(r.Stdout)) != "0" {
		t.Errorf("sleepers left in the container: %q", r.Stdout)
	}

	// Unstaged and writing: the helper refuses the missing names.
	r = runSh(t, s, `ls -A; echo x > .envrc 2>/dev/null && echo CREATED; mkdir .envrc 2>/dev/null && echo MADE; echo ok > plain.txt`, nil)
	if string(r.Stdout) != listing {
		t.Errorf("an unstaged run saw %q, want exactly the workspace %q", r.Stdout, listing)
	}
	if strings.Contains(string(r.Stdout), "CREATED") || strings.Contains(string(r.Stdout), "MADE") {
		t.Errorf("an unstaged run created a missing protected name: %q", r.Stdout)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "plain.txt")); string(b) != "ok\n" {
		t.Errorf("the unstaged run's own write: %q", b)
	}
	if _, err := os.Lstat(filepath.Join(ws, ".envrc")); err == nil {
		t.Errorf(".envrc is in the workspace")
	}
}

// A container whose runtime refuses the runs' namespaces (here: a seccomp
// profile that refuses new user namespaces, as docker's does) falls back
// to sharing its own: the staged call is refused as one that cannot be
// staged and nothing ran, the pipeline's unstaged rerun has its helper
// refuse the missing names (no placeholder), and the backend stops
// offering to stage.
func TestContainerWithoutNestingFallsBack(t *testing.T) {
	newPodman(t) // builds the image
	o := containertest.Options()
	o.Helper = launchtest.StaticHelper(t)
	profile := filepath.Join(t.TempDir(), "seccomp.json")
	must(t, os.WriteFile(profile, []byte(noUserNamespaces), 0o644))
	o.RunArgs = append(o.RunArgs, "--security-opt", "seccomp="+profile)
	b, err := container.New(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	if !b.CanStage() {
		t.Fatal("the backend does not offer to stage before trying")
	}
	ws, stageRoot := t.TempDir(), t.TempDir()
	must(t, os.Mkdir(filepath.Join(ws, ".git"), 0o755),
		os.MkdirAll(sandbox.StageUpper(stageRoot, "c1", 0), 0o700), os.MkdirAll(sandbox.StageWork(stageRoot, "c1", 0), 0o700))
	s, err := b.Open(t.Context(), sandbox.SessionSpec{ID: "nonest", Workspaces: []string{ws}, Limits: SessionLimits(), StageRoot: stageRoot})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	_, err = s.Run(t.Context(), sandbox.Spec{Argv: []string{"sh", "-c", "echo ran > ran.txt"}, Dir: ws, Env: []string{"PATH=/bin"}, Limits: sandbox.DefaultLimits(), Stage: &sandbox.Stage{Dir: "c1"}})
	if !errors.Is(err, sandbox.ErrCannotStage) {
		t.Fatalf("staged run without nesting: %v, want ErrCannotStage", err)
	}
	if _, err := os.Stat(filepath.Join(ws, "ran.txt")); err == nil {
		t.Fatal("the refused staged run ran")
	}
	if b.CanStage() {
		t.Error("the backend still offers to stage")
	}
	r := runSh(t, s, `echo x > .envrc 2>/dev/null && echo CREATED; echo ok > plain.txt`, nil)
	if strings.Contains(string(r.Stdout), "CREATED") {
		t.Errorf("the unstaged rerun created a missing protected name")
	}
	if _, err := os.Lstat(filepath.Join(ws, ".envrc")); err == nil {
		t.Errorf(".envrc is in the workspace")
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "plain.txt")); string(b) != "ok\n" {
		t.Errorf("the unstaged rerun's write: %q", b)
	}
}

// noUserNamespaces allows every system call but a clone or unshare that
// makes a user namespace (clone3, whose flags a filter cannot read, reads
// as missing, so callers use clone).
const noUserNamespaces = `{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
 {"names": ["clone", "unshare"], "action": "SCMP_ACT_ERRNO", "args": [{"index": 0, "value": 268435456, "valueTwo": 268435456, "op": "SCMP_CMP_MASKED_EQ"}]},
 {"names": ["clone3"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38}]}`
