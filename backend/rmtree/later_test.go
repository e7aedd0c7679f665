package rmtree

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLater: a tree handed in is gone from its place when Remove returns,
// and from the bin (and the bin itself) after Wait; a link in it is
// removed, not followed; a name that is not one entry is removed at once.
func TestLater(t *testing.T) {
	dir := t.TempDir()
	root, outside := filepath.Join(dir, "root"), filepath.Join(dir, "outside")
	must(t, os.MkdirAll(filepath.Join(outside, "keep"), 0o700), os.WriteFile(filepath.Join(outside, "keep", "f"), []byte("x"), 0o600))
	l := NewLater(filepath.Join(root, ".bin"))
	for _, c := range []struct{ name, tree string }{
		{"c_1", "c_1/0/work/work"},
		{"c_2", "c_2/0/upper/a/b"},
		{"nested/c_3", "nested/c_3/x"},
	} {
		must(t, os.MkdirAll(filepath.Join(root, c.tree), 0o700))
		must(t, os.Symlink(outside, filepath.Join(root, c.tree, "out")))
		// What overlayfs leaves in its work directory: no permissions.
		must(t, os.Chmod(filepath.Join(root, c.tree), 0))
		if err := l.Remove(root, c.name); err != nil {
			t.Fatalf("Remove(%s): %v", c.name, err)
		}
		if _, err := os.Lstat(filepath.Join(root, c.name)); !os.IsNotExist(err) {
			t.Errorf("%s is still in its place after Remove: %v", c.name, err)
		}
	}
	// With the bin gone meanwhile, a tree already gone leaves no bin.
	l.Wait()
	if err := l.Remove(root, "gone-already"); err != nil {
		t.Errorf("Remove of a missing tree: %v", err)
	}
	l.Wait()
	ents, err := os.ReadDir(root)
	must(t, err)
	for _, e := range ents {
		if e.Name() != "nested" {
			t.Errorf("%s left in the root after Wait", e.Name())
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "keep", "f")); err != nil {
		t.Errorf("a link in a removed tree was followed: %v", err)
	}
}
