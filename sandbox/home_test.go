package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFreshHomeLeavesOutCredentials: the copied home (Landlock, Seatbelt)
// has git's config and hooks but not its credential store.
func TestFreshHomeLeavesOutCredentials(t *testing.T) {
	real, fresh := t.TempDir(), filepath.Join(t.TempDir(), "home")
	for rel, body := range map[string]string{
		".gitconfig":                 "[user]\n\tname = P\n",
		".config/git/config":         "[core]\n",
		".config/git/hooks/pre-push": "#!/bin/sh\n",
		".config/git/credentials":    "https://p:secret@forge.example.test\n",
		".config/git/work.inc":       "[url \"https://p:secret@forge.example.test/\"]\n",
		".ssh/id_ed25519":            "key\n",
	} {
		p := filepath.Join(real, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := FreshHome(real, fresh); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(fresh, ".config/git/work.inc")); err != nil || strings.Contains(string(b), "secret") {
		t.Errorf("the included config: %q %v", b, err)
	}
	for rel, want := range map[string]bool{
		".gitconfig": true, ".config/git/config": true, ".config/git/hooks/pre-push": true,
		".config/git/credentials": false, ".ssh/id_ed25519": false,
	} {
		if _, err := os.Stat(filepath.Join(fresh, rel)); (err == nil) != want {
			t.Errorf("%s copied: %v, want %v", rel, err == nil, want)
		}
	}
}
