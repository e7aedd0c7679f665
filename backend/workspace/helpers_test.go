package workspace

import (
	"os"
	"path/filepath"
	"testing"
)

// tree builds a workspace "ws" and a sibling "outside" holding a canary,
// both under a fresh temp dir, and returns their resolved paths.
func tree(t *testing.T) (ws, outside string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws = filepath.Join(base, "ws")
	outside = filepath.Join(base, "outside")
	for _, d := range []string{ws, outside, filepath.Join(ws, "src", "pkg"), filepath.Join(outside, "sub")} {
		must(t, os.MkdirAll(d, 0o755))
	}
	write(t, filepath.Join(ws, "README.md"), "hello\n")
	write(t, filepath.Join(ws, "src", "pkg", "a.go"), "package pkg\n")
	write(t, filepath.Join(outside, "secret"), "CANARY")
	write(t, filepath.Join(outside, "sub", "secret"), "CANARY")
	return ws, outside
}

func newRoots(t *testing.T, dirs ...string) *Roots {
	t.Helper()
	r, err := New(dirs...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func write(t *testing.T, p, s string) {
	t.Helper()
	must(t, os.WriteFile(p, []byte(s), 0o644))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// bothModes runs f with openat2 and with the O_NOFOLLOW walk fallback.
func bothModes(t *testing.T, f func(t *testing.T)) {
	t.Run("openat2", func(t *testing.T) {
		if !haveOpenat2() {
			t.Skip("kernel has no openat2")
		}
		f(t)
	})
	t.Run("walk", func(t *testing.T) {
		old := forceWalk
		forceWalk = true
		t.Cleanup(func() { forceWalk = old })
		f(t)
	})
}
