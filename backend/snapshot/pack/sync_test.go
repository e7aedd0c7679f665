package pack

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteFileSync replaces a file whole and leaves no temp file behind, also
// when it fails.
func TestWriteFileSync(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	must(t, WriteFileSync(p, []byte("one")))
	must(t, WriteFileSync(p, []byte("two")))
	if b, err := os.ReadFile(p); err != nil || string(b) != "two" {
		t.Fatalf("read back %q, %v", b, err)
	}
	must(t, SyncDir(dir))
	// A directory in the way makes the rename fail.
	must(t, os.Mkdir(filepath.Join(dir, "d"), 0o700))
	must(t, os.WriteFile(filepath.Join(dir, "d", "x"), nil, 0o600))
	if err := WriteFileSync(filepath.Join(dir, "d"), []byte("x")); err == nil {
		t.Fatal("rename over a non-empty directory succeeded")
	}
	ents, err := os.ReadDir(dir)
	must(t, err)
	for _, e := range ents {
		if filepath.Ext(e.Name()) == ".tmp" {
			t.Fatalf("temp file %s left behind", e.Name())
		}
	}
}
