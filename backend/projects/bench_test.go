package projects

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkResolve is what finding a new run's workspace costs: the walk
// up to its git top and the roots it is checked against. It runs once
// per agent run (later calls find the run's session), against the ≤ 0.2
// ms a call may spend on it.
func BenchmarkResolve(b *testing.B) {
	base, _ := filepath.EvalSymlinks(b.TempDir())
	deep := filepath.Join(base, "src", "app", "a", "b", "c", "d")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		b.Fatal(err)
	}
	os.Mkdir(filepath.Join(base, "src", "app", ".git"), 0o755)
	os.WriteFile(filepath.Join(base, "src", "app", ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	p := New(Options{Roots: []string{filepath.Join(base, "src")}, Home: "/nonexistent", DataDir: "/nonexistent"})
	b.ResetTimer()
	for b.Loop() {
		if ws, _, err := p.Resolve(deep); err != nil || len(ws) != 1 {
			b.Fatal(ws, err)
		}
	}
}
