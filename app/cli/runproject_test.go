package cli

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// TestMakeProjectDirs: a missing name is made as an empty directory; one
// already there (a directory, a file, a symlink) is left as it is, to
// the scan; either way the scan finds it, so none is left to be made in
// the run.
func TestMakeProjectDirs(t *testing.T) {
	cases := []struct {
		name string
		// before makes .codex in ws, if set.
		before   func(t *testing.T, ws string)
		wantMade bool
		// check looks at .codex afterwards.
		check func(t *testing.T, p string)
	}{
		{"missing", nil, true, func(t *testing.T, p string) {
			fi, err := os.Lstat(p)
			if err != nil || !fi.IsDir() {
				t.Fatalf("not made as a directory: %v %v", fi, err)
			}
			if des, err := os.ReadDir(p); err != nil || len(des) != 0 {
				t.Errorf("not empty: %v %v", des, err)
			}
		}},
		{"a directory", func(t *testing.T, ws string) {
			if err := os.Mkdir(filepath.Join(ws, ".codex"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(ws, ".codex", "config.toml"), []byte("x = 1\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, false, func(t *testing.T, p string) {
			if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o700 {
				t.Errorf("changed: %v %v", fi, err)
			}
			if b, err := os.ReadFile(filepath.Join(p, "config.toml")); err != nil || string(b) != "x = 1\n" {
				t.Errorf("its file changed: %q %v", b, err)
			}
		}},
		{"a file", func(t *testing.T, ws string) {
			if err := os.WriteFile(filepath.Join(ws, ".codex"), []byte("mine"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, false, func(t *testing.T, p string) {
			if b, err := os.ReadFile(p); err != nil || string(b) != "mine" {
				t.Errorf("changed: %q %v", b, err)
			}
		}},
		{"a dangling symlink", func(t *testing.T, ws string) {
			if err := os.Symlink(filepath.Join(ws, "nowhere"), filepath.Join(ws, ".codex")); err != nil {
				t.Fatal(err)
			}
		}, false, func(t *testing.T, p string) {
			if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("not the symlink: %v %v", fi, err)
			}
			if _, err := os.Lstat(filepath.Join(filepath.Dir(p), "nowhere")); !os.IsNotExist(err) {
				t.Errorf("its target was made: %v", err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws := t.TempDir()
			if c.before != nil {
				c.before(t, ws)
			}
			made, err := makeProjectDirs(ws, []string{".codex"})
			if err != nil {
				t.Fatal(err)
			}
			if want := map[bool][]string{true: {".codex"}}[c.wantMade]; !slices.Equal(made, want) {
				t.Errorf("made %q, want %q", made, want)
			}
			c.check(t, filepath.Join(ws, ".codex"))
			w, err := protect.Scan(ws, protect.Exposure{})
			if err != nil {
				t.Fatal(err)
			}
			if slices.Contains(w.Protected.Missing, filepath.Join(ws, ".codex")) {
				t.Errorf(".codex is still missing to the scan: %q", w.Protected.Missing)
			}
		})
	}
}
