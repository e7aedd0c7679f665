//go:build linux

package gitguard

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkEnterLeave is what guarding adds to each Landlock run in a
// repository: record, watch, compare, for a fresh `git init`'s config
// and hooks (its fourteen sample hooks).
func BenchmarkEnterLeave(b *testing.B) {
	dir := b.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		b.Fatalf("git init: %v %s", err, out)
	}
	paths := []string{filepath.Join(dir, ".git", "config"), filepath.Join(dir, ".git", "hooks")}
	if _, err := os.Stat(paths[1]); err != nil {
		b.Fatal(err)
	}
	g := &Guard{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l, err := g.Enter(b.Context(), paths, nil)
		if err != nil {
			b.Fatal(err)
		}
		if vs := l.Leave(); len(vs) != 0 {
			b.Fatal(vs)
		}
	}
}
