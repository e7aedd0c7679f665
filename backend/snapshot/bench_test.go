package snapshot

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// benchWorkspace builds n small files, 20 per directory.
func benchWorkspace(b *testing.B, n int) string {
	b.Helper()
	ws := b.TempDir()
	for i := range n {
		p := filepath.Join(ws, fmt.Sprintf("d%02d/e%03d/f%d.txt", i/2000, i/20%100, i))
		if i%20 == 0 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(p, []byte(fmt.Sprintf("file %d\n", i)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return ws
}

func BenchmarkCheckpointNoChange(b *testing.B) {
	ws := benchWorkspace(b, 20000)
	s, err := Open(b.TempDir(), Options{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := b.Context()
	req := Request{Session: "b", CallID: "c", Phase: Pre, Roots: []string{ws}}
	if _, err := s.Checkpoint(ctx, req); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Checkpoint(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}
