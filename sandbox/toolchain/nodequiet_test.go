package toolchain

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestNodeQuiet: the script is written once, read-only, replaced when it
// differs; NODE_OPTIONS carries a path with a space quoted, and a path it
// cannot carry is refused.
func TestNodeQuiet(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "with space")
	path, env, err := NodeQuiet(dir)
	if err != nil || env != `NODE_OPTIONS=--require="`+path+`"` {
		t.Fatalf("NodeQuiet = %q %q %v", path, env, err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o444 {
		t.Fatalf("script: %v %v", st, err)
	}
	old := time.Unix(1, 0)
	os.Chtimes(path, old, old)
	if _, _, err := NodeQuiet(dir); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); !st.ModTime().Equal(old) {
		t.Error("an unchanged script was written again")
	}
	os.Chmod(path, 0o644)
	os.WriteFile(path, []byte("stale"), 0o644)
	if _, _, err := NodeQuiet(dir); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != nodeQuiet {
		t.Error("a stale script was kept")
	}
	if _, _, err := NodeQuiet(filepath.Join(t.TempDir(), `a"b`)); err == nil {
		t.Error("a path with a quote was accepted")
	}
}
