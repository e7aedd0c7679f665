package fsops

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/workspace"
)

type fixture struct {
	t       *testing.T
	ws      string
	outside string
	roots   *workspace.Roots
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	f := &fixture{t: t, ws: filepath.Join(base, "ws"), outside: filepath.Join(base, "outside")}
	must(t, os.MkdirAll(f.ws, 0o755))
	must(t, os.MkdirAll(f.outside, 0o755))
	must(t, os.WriteFile(filepath.Join(f.outside, "secret"), []byte("CANARY\n"), 0o644))
	f.roots, err = workspace.New(f.ws)
	must(t, err)
	t.Cleanup(func() { f.roots.Close() })
	return f
}

func (f *fixture) write(rel, content string) {
	f.t.Helper()
	p := filepath.Join(f.ws, rel)
	must(f.t, os.MkdirAll(filepath.Dir(p), 0o755))
	must(f.t, os.WriteFile(p, []byte(content), 0o644))
}

// writeAll writes each file (path relative to the workspace: content).
func (f *fixture) writeAll(files map[string]string) {
	f.t.Helper()
	for rel, content := range files {
		f.write(rel, content)
	}
}

// file writes rel and resolves it, for a test about that one file.
func (f *fixture) file(rel, content string) workspace.Path {
	f.t.Helper()
	f.write(rel, content)
	return f.path(rel)
}

func (f *fixture) read(rel string) string {
	f.t.Helper()
	b, err := os.ReadFile(filepath.Join(f.ws, rel))
	must(f.t, err)
	return string(b)
}

func (f *fixture) path(rel string) workspace.Path {
	f.t.Helper()
	p, err := f.roots.Resolve(rel)
	must(f.t, err)
	return p
}

var ctx = context.Background()

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
