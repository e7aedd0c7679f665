//go:build integration

package snapshot

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/fulldisk"
	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

const childEnv = "GATEHOUSE_SNAPSHOT_CRASH_CHILD"

// TestCrashChild is the child half of TestRollbackSurvivesSIGKILL: it
// applies a rollback and waits to be killed. It does nothing when run
// directly.
func TestCrashChild(t *testing.T) {
	spec := os.Getenv(childEnv)
	if spec == "" {
		return
	}
	parts := strings.Split(spec, "\n")
	s, err := Open(parts[0], Options{}, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child open:", err)
		os.Exit(2)
	}
	ctx := t.Context()
	p, err := s.Plan(ctx, RollbackRequest{Session: parts[1], To: parts[2]})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child plan:", err)
		os.Exit(2)
	}
	if _, err := s.Apply(ctx, p); err != nil {
		fmt.Fprintln(os.Stderr, "child apply:", err)
		os.Exit(2)
	}
	os.Exit(0)
}

// A rollback killed with SIGKILL half way is finished by the next Open:
// the workspace then equals the rollback's target exactly.
func TestRollbackSurvivesSIGKILL(t *testing.T) {
	ws, data := t.TempDir(), t.TempDir()
	for i := range 3000 {
		writeFile(t, ws, fmt.Sprintf("src/d%02d/f%04d.txt", i%30, i), strings.Repeat(fmt.Sprintf("line %d\n", i), 400), 0o644)
	}
	writeFile(t, ws, "keep/run.sh", "#!/bin/sh\n", 0o755)
	s, err := Open(data, Options{}, nil)
	must(t, err)
	want := readState(t, ws)
	pre := mustCheckpoint(t, s, Request{Session: "s", CallID: "c", Phase: Pre, Roots: []string{ws}})
	must(t, os.RemoveAll(filepath.Join(ws, "src")))
	must(t, os.Chmod(filepath.Join(ws, "keep/run.sh"), 0o644))
	writeFile(t, ws, "src", "now a file", 0o644)
	mustCheckpoint(t, s, Request{Session: "s", CallID: "c", Phase: Post, Roots: []string{ws}})
	mutated := readState(t, ws)
	must(t, s.Close())

	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"="+data+"\ns\n"+pre.ID)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	must(t, cmd.Start())
	defer cmd.Process.Kill() // if the wait below fails the test
	progress := ""
	waitfor.For(t, 30*time.Second, "rollback progress in the journal", func() bool {
		matches, _ := filepath.Glob(filepath.Join(data, "journal", "*.progress"))
		if len(matches) > 0 {
			b, _ := os.ReadFile(matches[0])
			if strings.Contains(string(b), "wrote ") {
				progress = matches[0]
			}
		}
		return progress != ""
	})
	must(t, cmd.Process.Signal(syscall.SIGKILL))
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child was not killed mid-rollback (err %v); the rollback finished too fast to test", err)
	}
	if progress == "" {
		t.Fatal("never saw rollback progress in the journal")
	}
	half := readState(t, ws)
	if diffState(want, half) == "" || diffState(mutated, half) == "" {
		t.Fatal("kill did not land mid-rollback")
	}
	t.Logf("killed after: %s", mustRead(t, progress))

	s2 := openStore(t, data, Options{}) // runs Recover
	if d := diffState(want, readState(t, ws)); d != "" {
		t.Fatalf("after recovery the workspace is not the rollback target:\n%s", d)
	}
	if left, _ := filepath.Glob(filepath.Join(data, "journal", "*")); len(left) != 0 {
		t.Fatalf("journal left behind: %v", left)
	}
	leftovers := 0
	filepath.Walk(ws, func(p string, _ os.FileInfo, _ error) error {
		if strings.HasPrefix(filepath.Base(p), ".gatehouse-rb-") {
			leftovers++
		}
		return nil
	})
	if leftovers != 0 {
		t.Fatalf("%d temp files left in the workspace", leftovers)
	}
	// The recovered rollback is recorded and undoable.
	list, _ := s2.List("s")
	last := list[len(list)-1]
	if !strings.HasPrefix(last.CallID, "rollback:") || last.Phase != Post {
		t.Fatalf("last checkpoint = %s/%s", last.CallID, last.Phase)
	}
	rollbackTo(t, s2, RollbackRequest{Session: "s", UndoCall: last.CallID})
	if d := diffState(mutated, readState(t, ws)); d != "" {
		t.Fatalf("undoing the recovered rollback:\n%s", d)
	}
}

func mustRead(t *testing.T, p string) string {
	b, err := os.ReadFile(p)
	must(t, err)
	return strings.TrimSpace(string(b))
}

// A disk that fills mid-checkpoint gives ErrNoSpace, records nothing and
// leaves the store usable. The store sits on a 2 MiB tmpfs.
func TestCheckpointDiskFull(t *testing.T) {
	data := fulldisk.New(t, "size=2m")
	ws := t.TempDir()
	seedWorkspace(t, ws)
	noise := make([]byte, 6<<20)
	rand.Read(noise)
	writeFile(t, ws, "big/noise.bin", string(noise), 0o644)
	s := openStore(t, data, Options{})
	_, err := s.Checkpoint(t.Context(), Request{Session: "s", CallID: "c", Phase: Pre, Roots: []string{ws}})
	if !errors.Is(err, ErrNoSpace) {
		t.Fatalf("err = %v, want ErrNoSpace", err)
	}
	var ns *NoSpaceError
	if !errors.As(err, &ns) || !strings.Contains(err.Error(), "disk holding snapshots is full") {
		t.Fatalf("error not typed/clear: %v", err)
	}
	if list, _ := s.List("s"); len(list) != 0 {
		t.Fatalf("a failed checkpoint was recorded")
	}
	packs, _ := filepath.Glob(filepath.Join(data, "packs", "*"))
	if len(packs) != 0 {
		t.Fatalf("partial pack left: %v", packs)
	}
	must(t, os.RemoveAll(filepath.Join(ws, "big")))
	cp := mustCheckpoint(t, s, Request{Session: "s", CallID: "c", Phase: Pre, Roots: []string{ws}})
	writeFile(t, ws, "README.md", "changed\n", 0o644)
	mustCheckpoint(t, s, Request{Session: "s", CallID: "c", Phase: Post, Roots: []string{ws}})
	rollbackTo(t, s, RollbackRequest{Session: "s", To: cp.ID})
}

// As a user who cannot read a file, the file is reported with a typed
// error before (Preflight) and by the checkpoint, which still succeeds.
func TestUnreadableFileReported(t *testing.T) {
	if os.Getenv(childEnv+"_NOBODY") != "" {
		return
	}
	if os.Geteuid() != 0 {
		t.Fatal("this test drops to uid 65534 and must run as root")
	}
	base, err := os.MkdirTemp("", "gh-unreadable-")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(base) })
	must(t, os.Chmod(base, 0o755))
	ws, data := filepath.Join(base, "ws"), filepath.Join(base, "data")
	seedWorkspace(t, ws)
	writeFile(t, ws, "secret.key", "root only", 0o600)
	must(t, os.MkdirAll(data, 0o700))
	must(t, os.Chown(data, 65534, 65534))
	filepath.Walk(ws, func(p string, info os.FileInfo, _ error) error {
		if info.Name() != "secret.key" {
			os.Lchown(p, 65534, 65534)
		}
		return nil
	})
	bin := filepath.Join(base, "test.bin")
	exe, _ := os.ReadFile(os.Args[0])
	must(t, os.WriteFile(bin, exe, 0o755))
	cmd := exec.Command(bin, "-test.run=^TestUnreadableChild$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"_NOBODY="+data+"\n"+ws)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child failed: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "CHILD-OK") {
		t.Fatalf("child did not confirm:\n%s", out)
	}
}

func TestUnreadableChild(t *testing.T) {
	spec := os.Getenv(childEnv + "_NOBODY")
	if spec == "" {
		return
	}
	parts := strings.Split(spec, "\n")
	s := openStore(t, parts[0], Options{})
	ws := parts[1]
	nr, err := s.Preflight(t.Context(), []string{ws}, nil)
	must(t, err)
	if len(nr) != 1 || nr[0].Path != "secret.key" || !errors.Is(nr[0].Err(), ErrUnreadable) {
		t.Fatalf("preflight = %+v", nr)
	}
	cp := mustCheckpoint(t, s, Request{Session: "s", CallID: "c", Phase: Pre, Roots: []string{ws}})
	if len(cp.NotRestorable) != 1 || !errors.Is(cp.NotRestorable[0].Err(), ErrUnreadable) {
		t.Fatalf("checkpoint not restorable = %+v", cp.NotRestorable)
	}
	fmt.Println("CHILD-OK", cp.NotRestorable[0].Err())
}
