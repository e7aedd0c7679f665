package rmtree

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// asUserEnv marks the child that TestUnderAsUser starts.
const asUserEnv = "GATEHOUSE_RMTREE_CHILD"

// childUID owns nothing else on the machine; root would remove the tree
// whatever its permissions, so the test that counts runs as this uid.
const childUID = 61998

func TestUnderAsUser(t *testing.T) {
	dir := os.Getenv(asUserEnv)
	if dir == "" {
		if os.Geteuid() != 0 {
			dir = t.TempDir()
		} else {
			dir = t.TempDir()
			must(t, os.Chmod(filepath.Dir(dir), 0o755), os.Chown(dir, childUID, childUID))
			// The build's own directory is root's alone.
			self, err := os.Executable()
			must(t, err)
			bin := filepath.Join(filepath.Dir(dir), "rmtree.test")
			b, err := os.ReadFile(self)
			must(t, err, os.WriteFile(bin, b, 0o755))
			cmd := exec.Command(bin, "-test.run", "^TestUnderAsUser$", "-test.v")
			cmd.Env = []string{asUserEnv + "=" + dir}
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: childUID, Gid: childUID}}
			out, err := cmd.CombinedOutput()
			t.Logf("as uid %d:\n%s", childUID, out)
			if err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	if os.Geteuid() == 0 {
		t.Fatal("the child must not be root")
	}
	root := filepath.Join(dir, "root")
	outside := filepath.Join(dir, "outside")
	must(t, os.MkdirAll(filepath.Join(outside, "keep"), 0o700), os.WriteFile(filepath.Join(outside, "keep", "f"), []byte("x"), 0o600))
	// What overlayfs leaves in a volatile mount's work directory, and what
	// a command may leave in its upper layer.
	run := filepath.Join(root, "c_1")
	for _, d := range []string{"0/work/work", "0/work/incompat/volatile", "0/upper/locked/deeper"} {
		must(t, os.MkdirAll(filepath.Join(run, d), 0o700))
	}
	must(t, os.WriteFile(filepath.Join(run, "0/work/incompat/volatile/dirty"), nil, 0),
		os.WriteFile(filepath.Join(run, "0/upper/locked/deeper/f"), []byte("x"), 0o400),
		os.Symlink(outside, filepath.Join(run, "0/upper/locked/out")))
	for _, d := range []string{"0/work/incompat/volatile", "0/work/incompat", "0/work/work", "0/work", "0/upper/locked/deeper", "0/upper/locked"} {
		must(t, os.Chmod(filepath.Join(run, d), 0))
	}
	if err := os.RemoveAll(run); err == nil {
		t.Fatal("os.RemoveAll removed the tree; the test shows nothing")
	}

	must(t, Under(root, "c_1"))
	if _, err := os.Lstat(run); !os.IsNotExist(err) {
		t.Fatalf("%s is still there: %v", run, err)
	}
	if _, err := os.Stat(filepath.Join(outside, "keep", "f")); err != nil {
		t.Fatalf("the link's target was touched: %v", err)
	}
}

func TestUnderRefusesPathsOutside(t *testing.T) {
	root := t.TempDir()
	for _, rel := range []string{"", ".", "..", "../x", "/etc"} {
		if err := Under(root, rel); err == nil {
			t.Errorf("Under(%q) = nil, want a refusal", rel)
		}
	}
	if err := Under(root, "missing"); err != nil {
		t.Errorf("a path already gone: %v", err)
	}
}

func must(t *testing.T, errs ...error) {
	t.Helper()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}
