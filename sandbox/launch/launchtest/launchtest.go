// Package launchtest builds the stand-alone sandbox helper for tests that
// need it as a file of its own, statically linked (the container backend
// mounts it into images that have no C library).
package launchtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
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
