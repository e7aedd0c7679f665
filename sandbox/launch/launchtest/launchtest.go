// Package launchtest gives tests the sandbox helper: the test binary
// itself (Main), or the stand-alone helper built as a file of its own,
// statically linked (the container backend mounts it into images that
// have no C library).
package launchtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
)

var (
	once  sync.Once
	built string
	err   error
	out   []byte
)

// HelperEnv names an already built static helper, for a test process
// that cannot build one (another user, without the module cache).
const HelperEnv = "GATEHOUSE_TEST_STATIC_HELPER"

// StaticHelper builds gatehouse-sandbox-init with CGO_ENABLED=0, once per
// test process, and returns its path.
func StaticHelper(t testing.TB) string {
	t.Helper()
	if p := os.Getenv(HelperEnv); p != "" {
		return p
	}
	once.Do(func() {
		dir, e := os.MkdirTemp("", "gatehouse-helper-")
		if e != nil {
			err = e
			return
		}
		goBin, e := exec.LookPath("go")
		if e != nil {
			goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
		}
		built = filepath.Join(dir, "gatehouse-sandbox-init")
		cmd := exec.Command(goBin, "build", "-o", built, "github.com/gatehouse-dev/gatehouse/sandbox/cmd/gatehouse-sandbox-init")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err = cmd.CombinedOutput()
	})
	if err != nil {
		t.Fatalf("build the static sandbox helper: %v\n%s", err, out)
	}
	return built
}

// Main runs a test binary that doubles as the sandbox helper, as
// gatehouse does: started as initproc.Entry it is the helper, else it
// runs m's tests.
func Main(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == initproc.Entry {
		os.Exit(initproc.Main(os.Args[2:]))
	}
	os.Exit(m.Run())
}
