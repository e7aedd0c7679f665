package hookserver

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLandedDir: the agent's shell moves only into a directory of a
// workspace that is there now, not through a link to outside.
func TestLandedDir(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	ws, _ = filepath.EvalSymlinks(ws)
	sub := filepath.Join(ws, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "file"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ dir, want string }{
		{sub, sub},
		{ws, ws},
		{"", ""},
		{filepath.Join(ws, "gone"), ""}, // a staged mkdir that was discarded
		{filepath.Join(ws, "out"), ""},
		{filepath.Join(ws, "file"), ""},
		{outside, ""},
		{"sub", ""},
	} {
		if got := landedDir([]string{ws}, c.dir); got != c.want {
			t.Errorf("landedDir(%q) = %q, want %q", c.dir, got, c.want)
		}
	}
}
