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
	s := For(ws)
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
	s2 := For(ws2)
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
	a := r.Reserve([]string{p})
	b := r.Reserve([]string{p})
	if len(a) != 1 || len(b) != 1 {
		t.Fatalf("reserve: %v %v", a, b)
	}
	r.Release(a)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("placeholder removed while still held: %v", err)
	}
	r.Release(b)
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Fatalf("placeholder left behind: %v", err)
	}
	// A path that already exists is not taken over.
	must(t, os.WriteFile(p, []byte("{}"), 0o644))
	if got := r.Reserve([]string{p}); len(got) != 0 {
		t.Fatalf("reserved an existing file: %v", got)
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
	if _, err := os.Stat(missing); err != nil {
		t.Fatalf("placeholder removed under the second run: %v", err)
	}
	r.Release(held2)
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Fatalf("placeholder left behind: %v", err)
	}
}

// With a pool, placeholders are renamed in and out instead of made and
// removed; one a run wrote into stays where it is, and a spare that
// changed is not handed out again.
func TestPoolRenamesPlaceholders(t *testing.T) {
	ws := t.TempDir()
	r := &Placeholders{}
	must(t, r.UsePool(filepath.Join(t.TempDir(), "pool")))
	a, b := filepath.Join(ws, ".mcp.json"), filepath.Join(ws, ".vscode")
	held, existing := r.Cover([]string{a, b})
	if len(held) != 2 || len(existing) != 0 || !r.pooled[a] || !r.pooled[b] {
		t.Fatalf("held %v existing %v pooled %v", held, existing, r.pooled)
	}
	for _, p := range held {
		if st, err := os.Lstat(p); err != nil || !st.IsDir() || st.Mode().Perm() != 0o555 {
			t.Fatalf("placeholder %s: %v %v", p, st, err)
		}
	}
	// Something wrote into .vscode (a sandbox where it was not covered).
	must(t, os.Chmod(b, 0o755), os.WriteFile(filepath.Join(b, "tasks.json"), []byte("{}"), 0o644))
	r.Release(held)
	if _, err := os.Lstat(a); !os.IsNotExist(err) {
		t.Errorf("empty placeholder left in the workspace: %v", err)
	}
	if _, err := os.Stat(filepath.Join(b, "tasks.json")); err != nil {
		t.Errorf("what was written into a placeholder left the workspace: %v", err)
	}
	if len(r.pool.spare) != 1 {
		t.Fatalf("spares %v, want the one clean placeholder back", r.pool.spare)
	}
	// The spare changes while it waits: it is dropped, a fresh one used.
	must(t, os.Chmod(r.pool.spare[0], 0o755), os.WriteFile(filepath.Join(r.pool.spare[0], "x"), nil, 0o644))
	held, _ = r.Cover([]string{a})
	if ents, err := os.ReadDir(a); err != nil || len(ents) != 0 || len(held) != 1 {
		t.Fatalf("placeholder from a changed spare: %v %v", ents, err)
	}
	r.Release(held)
	// A workspace on another filesystem (here: /dev/shm) falls back to mkdir.
	if shm, err := os.MkdirTemp("/dev/shm", "ws"); err == nil {
		defer os.RemoveAll(shm)
		p := filepath.Join(shm, ".envrc")
		held, _ := r.Cover([]string{p})
		if len(held) != 1 || r.pooled[p] {
			t.Errorf("cross-filesystem placeholder: held %v pooled %v", held, r.pooled[p])
		}
		r.Release(held)
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("cross-filesystem placeholder left behind: %v", err)
		}
	}
}
