package snapshot

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestReadFile reads a file as a checkpoint holds it, after the
// workspace changed, and refuses directories and missing names.
func TestReadFile(t *testing.T) {
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".git", "refs", "heads"), 0o755)
	os.WriteFile(filepath.Join(ws, ".git", "refs", "heads", "main"), []byte("abc\n"), 0o644)
	s := openStore(t, t.TempDir(), Options{})
	cp, err := s.Checkpoint(t.Context(), Request{Session: "s", CallID: "c", Phase: Pre, Roots: []string{ws}})
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(ws, ".git"))
	for _, tc := range []struct {
		rel     string
		want    string
		missing bool
	}{
		{rel: ".git/refs/heads/main", want: "abc\n"},
		{rel: ".git/refs/heads", missing: true},
		{rel: ".git/refs/heads/topic", missing: true},
		{rel: "nothing/here", missing: true},
	} {
		b, err := s.ReadFile(cp.ID, ws, tc.rel)
		switch {
		case tc.missing && !errors.Is(err, fs.ErrNotExist):
			t.Errorf("%s: %q %v, want not-exist", tc.rel, b, err)
		case !tc.missing && (err != nil || string(b) != tc.want):
			t.Errorf("%s: %q %v, want %q", tc.rel, b, err, tc.want)
		}
	}
}
