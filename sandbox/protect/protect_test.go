package protect

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestFor(t *testing.T) {
	ws := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755))
	must(t, os.WriteFile(filepath.Join(ws, ".git", "config"), nil, 0o644))
	must(t, os.WriteFile(filepath.Join(ws, ".gatehouse-policy.toml"), nil, 0o644))
	must(t, os.Mkdir(filepath.Join(ws, ".vscode"), 0o755))
	s, err := For(ws)
	must(t, err)
	for _, want := range []string{".git/hooks", ".git/config", ".gatehouse-policy.toml", ".vscode"} {
		if !slices.Contains(s.Existing, filepath.Join(ws, want)) {
			t.Errorf("existing lacks %s: %v", want, s.Existing)
		}
	}
	for _, want := range []string{".mcp.json", ".claude", ".idea", ".bashrc"} {
		if !slices.Contains(s.Missing, filepath.Join(ws, want)) {
			t.Errorf("missing lacks %s: %v", want, s.Missing)
		}
	}

	// Without a .git directory, nothing under .git is listed; a .git file
	// (worktree pointer) is protected itself.
	ws2 := t.TempDir()
	must(t, os.WriteFile(filepath.Join(ws2, ".git"), []byte("gitdir: /x"), 0o644))
	s2, err := For(ws2)
	must(t, err)
	if !slices.Contains(s2.Existing, filepath.Join(ws2, ".git")) {
		t.Errorf(".git file not protected: %v", s2.Existing)
	}
	if slices.Contains(s2.Missing, filepath.Join(ws2, ".git/hooks")) {
		t.Errorf(".git/hooks listed without a .git dir")
	}
}

func TestPlaceholdersRefcount(t *testing.T) {
	ws := t.TempDir()
	p := filepath.Join(ws, ".mcp.json")
	r := &Placeholders{}
	a, _ := r.Cover([]string{p})
	b, _ := r.Cover([]string{p})
	if len(a) != 1 || len(b) != 1 {
		t.Fatalf("cover: %v %v", a, b)
	}
	if got, err := os.Readlink(p); err != nil || got != LinkTarget {
		t.Fatalf("placeholder: %q %v, want a link to %s", got, err, LinkTarget)
	}
	r.Release(a)
	if _, err := os.Lstat(p); err != nil {
		t.Fatalf("placeholder removed while still held: %v", err)
	}
	r.Release(b)
	if _, err := os.Lstat(p); !os.IsNotExist(err) {
		t.Fatalf("placeholder left behind: %v", err)
	}
	// A path that already exists is not taken over.
	must(t, os.WriteFile(p, []byte("{}"), 0o644))
	if held, existing := r.Cover([]string{p}); len(held) != 0 || len(existing) != 1 {
		t.Fatalf("covered an existing file as a placeholder: %v", held)
	}
}

func must(t *testing.T, errs ...error) {
	t.Helper()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestCoverSplitsPlaceholdersFromTheUsersFiles(t *testing.T) {
	ws := t.TempDir()
	mine := filepath.Join(ws, ".bashrc")
	must(t, os.WriteFile(mine, []byte("# mine"), 0o644))
	missing := filepath.Join(ws, ".mcp.json")
	noParent := filepath.Join(ws, ".git", "hooks")
	r := &Placeholders{}
	held, existing := r.Cover([]string{mine, missing, noParent})
	if !slices.Equal(held, []string{missing}) || !slices.Equal(existing, []string{mine}) {
		t.Fatalf("held %v existing %v", held, existing)
	}
	// A second run finds the placeholder and holds it as well.
	held2, existing2 := r.Cover([]string{missing})
	if !slices.Equal(held2, []string{missing}) || len(existing2) != 0 {
		t.Fatalf("second run: held %v existing %v", held2, existing2)
	}
	r.Release(held)
	if _, err := os.Lstat(missing); err != nil {
		t.Fatalf("placeholder removed under the second run: %v", err)
	}
	r.Release(held2)
	if _, err := os.Lstat(missing); !os.IsNotExist(err) {
		t.Fatalf("placeholder left behind: %v", err)
	}
}

// The container's placeholders are directories, and files where git
// reads a file; each goes away with its last hold, unless changed.
func TestReserveForTheContainer(t *testing.T) {
	ws := t.TempDir()
	must(t, os.Mkdir(filepath.Join(ws, ".git"), 0o755))
	dir, cd, wc := filepath.Join(ws, ".envrc"), filepath.Join(ws, ".git", "commondir"), filepath.Join(ws, ".git", "config.worktree")
	r := &Placeholders{}
	held := r.Reserve([]string{dir, cd, wc})
	if len(held) != 3 {
		t.Fatalf("held %v", held)
	}
	if st, err := os.Lstat(dir); err != nil || !st.IsDir() {
		t.Errorf(".envrc placeholder: %v %v", st, err)
	}
	if b, err := os.ReadFile(cd); err != nil || string(b) != ".\n" {
		t.Errorf("commondir placeholder: %q %v, want the git dir itself", b, err)
	}
	if st, err := os.Lstat(wc); err != nil || !st.Mode().IsRegular() || st.Size() != 0 {
		t.Errorf("config.worktree placeholder: %v %v", st, err)
	}
	// Something wrote into config.worktree: it stays.
	must(t, os.Chmod(wc, 0o644), os.WriteFile(wc, []byte("[core]\n"), 0o644))
	r.Release(held)
	for _, p := range []string{dir, cd} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s left behind: %v", p, err)
		}
	}
	if _, err := os.Lstat(wc); err != nil {
		t.Errorf("a changed placeholder was removed: %v", err)
	}
}
