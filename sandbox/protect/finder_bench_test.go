package protect

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// benchTree is a 100,000-file workspace made once per test binary: 20 ×
// 20 × 17 directories of 14 or 15 files each (about 15 files per
// directory, as in source trees), a few of them secrets.
var benchTree = sync.OnceValues(func() (string, error) {
	root, err := os.MkdirTemp("", "gatehouse-bench-tree-")
	if err != nil {
		return "", err
	}
	benchTreeMade = root
	n := 0
	for a := range 20 {
		for b := range 20 {
			for c := range 17 {
				d := filepath.Join(root, fmt.Sprintf("pkg%02d", a), fmt.Sprintf("mod%02d", b), fmt.Sprintf("part%02d", c))
				if err := os.MkdirAll(d, 0o755); err != nil {
					return root, err
				}
				for f := 0; f < 15 && n < 100_000; f++ {
					name := fmt.Sprintf("file%02d.go", f)
					if f == 0 && c == 0 {
						name = ".env"
						benchSecrets++
					}
					if err := os.WriteFile(filepath.Join(d, name), nil, 0o644); err != nil {
						return root, err
					}
					n++
				}
			}
		}
	}
	old := time.Now().Add(-time.Hour) // out of the racy window
	return root, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		return os.Chtimes(p, old, old)
	})
})

func benchRoot(b *testing.B) string {
	b.Helper()
	root, err := benchTree()
	if err != nil {
		b.Fatal(err)
	}
	return root
}

// The walk each command pays for, with the listings cached.
func BenchmarkFindSecretsCached(b *testing.B) {
	root := benchRoot(b)
	f := &Finder{}
	if _, err := f.Find(root, Exposure{}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		got, err := f.Find(root, Exposure{})
		if err != nil || got.Listed != 0 || len(got.Files) != benchSecrets {
			b.Fatalf("listed %d, found %d: %v", got.Listed, len(got.Files), err)
		}
	}
}

// The first walk, or every walk without the cache.
func BenchmarkFindSecretsUncached(b *testing.B) {
	root := benchRoot(b)
	for b.Loop() {
		if _, err := (&Finder{}).Find(root, Exposure{}); err != nil {
			b.Fatal(err)
		}
	}
}

// The alternative: the standard library's walk, matching every name.
func BenchmarkFindSecretsWalkDir(b *testing.B) {
	root := benchRoot(b)
	for b.Loop() {
		n := 0
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && IsSecret(d.Name()) {
				n++
			}
			return err
		})
		if err != nil || n != benchSecrets {
			b.Fatal(n, err)
		}
	}
}

// benchSecrets counts the secrets in the tree.
var benchSecrets int

// benchTreeMade is the tree to remove when the tests end, if made.
var benchTreeMade string

func TestMain(m *testing.M) {
	code := m.Run()
	if benchTreeMade != "" {
		os.RemoveAll(benchTreeMade)
	}
	os.Exit(code)
}
