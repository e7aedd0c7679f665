//go:build integration

package proof

import (
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox/launch/launchtest"
)

// unprivEnv marks the child test process started by TestUnprivileged.
const unprivEnv = "GATEHOUSE_TEST_UNPRIVILEGED"

// unprivUID is a uid of the battery's own, with no account: RLIMIT_NPROC,
// which the fork-bomb row sets, counts every process and thread of the
// uid (under Landlock, system-wide), so it must not be shared with another
// test's processes, such as backend/snapshot's, which runs as nobody while
// `make test` runs packages in parallel.
const unprivUID = 61999

// Most users are not root: re-run the battery and the suite as an
// unprivileged uid, with a home, workspace and TMPDIR it owns.
func TestUnprivileged(t *testing.T) {
	if os.Geteuid() != 0 {
		// The children run only the battery tests, and never as root.
		t.Skipf("running as uid %d: every other test here already is the unprivileged run", os.Geteuid())
	}
	bin, help, home, tmp := copiesFor(t, "gatehouse-unpriv-", unprivUID, unprivUID)
	cmd := exec.Command(bin, "-test.run", "^(TestBattery(Bwrap|BwrapStaticHelper|Landlock)|TestBadInputRefusedBeforeRunning|TestCancelKillsWholeTree|TestRunsAreBounded)$", "-test.v", "-test.count=1")
	cmd.Dir = tmp
	cmd.Env = []string{"HOME=" + home, "TMPDIR=" + tmp, "PATH=/usr/local/bin:/usr/bin:/bin", unprivEnv + "=1", launchtest.HelperEnv + "=" + help}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: unprivUID, Gid: unprivUID}}
	out, err := cmd.CombinedOutput()
	t.Logf("unprivileged run (uid %d):\n%s", unprivUID, out)
	if err != nil {
		t.Fatalf("the battery failed as uid %d: %v", unprivUID, err)
	}
}

// rootlessUser is made by scripts/deps.sh test, with a subordinate
// uid/gid range, which rootless podman needs (nobody has none).
const rootlessUser = "gatehouse-rootless"

// Rootless podman is how most people run containers: the container
// battery again, as a normal user with its own container storage.
func TestUnprivilegedPodman(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skipf("running as uid %d: TestBatteryPodman already is the rootless run", os.Geteuid())
	}
	u, err := user.Lookup(rootlessUser)
	if err != nil {
		t.Fatalf("user %s is missing; `make test` creates it (or: useradd --create-home %s, which also gives it a /etc/subuid range): %v", rootlessUser, rootlessUser, err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	bin, help, home, tmp := copiesFor(t, "gatehouse-rootless-", uid, gid)
	cmd := exec.Command(bin, "-test.run", "^TestBatteryPodman$", "-test.v", "-test.count=1")
	cmd.Dir = tmp
	cmd.Env = []string{"HOME=" + home, "TMPDIR=" + tmp, "USER=" + rootlessUser, "PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
		unprivEnv + "=1", launchtest.HelperEnv + "=" + help}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	out, err := cmd.CombinedOutput()
	t.Logf("rootless podman run (%s, uid %d):\n%s", rootlessUser, uid, out)
	// Rootless podman leaves a pause process holding its user namespace.
	_ = exec.Command("pkill", "-KILL", "-u", rootlessUser).Run()
	if err != nil {
		t.Fatalf("the container battery failed as %s: %v", rootlessUser, err)
	}
}

// copiesFor copies this test binary and the static helper into a new
// directory anyone may enter, beside a home and a TMPDIR that uid:gid
// own, for a run of the tests as that user; all go when the test ends.
func copiesFor(t *testing.T, prefix string, uid, gid int) (bin, help, home, tmp string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	base, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	must(t, os.Chmod(base, 0o755))
	bin, help = filepath.Join(base, "proof.test"), filepath.Join(base, "gatehouse-sandbox-init")
	copyFile(t, self, bin)
	copyFile(t, launchtest.StaticHelper(t), help)
	home, tmp = filepath.Join(base, "home"), filepath.Join(base, "tmp")
	for _, d := range []string{home, tmp} {
		must(t, os.Mkdir(d, 0o700), os.Chown(d, uid, gid))
	}
	return bin, help, home, tmp
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
