//go:build integration

package proof

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// unprivEnv marks the child test process started by TestUnprivileged.
const unprivEnv = "GATEHOUSE_TEST_UNPRIVILEGED"

// unprivUID is nobody, which exists on every Debian system.
const unprivUID = 65534

// Most users are not root: re-run the battery and the suite as an
// unprivileged uid, with a home, workspace and TMPDIR it owns.
func TestUnprivileged(t *testing.T) {
	if os.Getenv(unprivEnv) != "" {
		t.Skip("already the unprivileged child")
	}
	if os.Geteuid() != 0 {
		t.Logf("running as uid %d: the other tests already are the unprivileged run", os.Geteuid())
		return
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	base, err := os.MkdirTemp("", "gatehouse-unpriv-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	must(t, os.Chmod(base, 0o755))
	bin := filepath.Join(base, "proof.test")
	copyFile(t, self, bin)
	home, tmp := filepath.Join(base, "home"), filepath.Join(base, "tmp")
	for _, d := range []string{home, tmp} {
		must(t, os.Mkdir(d, 0o700), os.Chown(d, unprivUID, unprivUID))
	}
	cmd := exec.Command(bin, "-test.run", "^(TestBattery(Bwrap|Landlock)|TestBadInputRefusedBeforeRunning|TestCancelKillsWholeTree)$", "-test.v", "-test.count=1")
	cmd.Dir = tmp
	cmd.Env = []string{"HOME=" + home, "TMPDIR=" + tmp, "PATH=/usr/local/bin:/usr/bin:/bin", unprivEnv + "=1"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: unprivUID, Gid: unprivUID}}
	out, err := cmd.CombinedOutput()
	t.Logf("unprivileged run (uid %d):\n%s", unprivUID, out)
	if err != nil {
		t.Fatalf("the battery failed as uid %d: %v", unprivUID, err)
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	must(t, out.Close())
}
