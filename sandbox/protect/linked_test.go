package protect

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// linkedLayout writes what `git worktree add` leaves: common/.git with
// worktrees/wt, and a worktree whose .git file points there.
func linkedLayout(t *testing.T) (ws, common, gitDir string) {
	t.Helper()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	common = filepath.Join(root, "repo", ".git")
	gitDir = filepath.Join(common, "worktrees", "wt")
	ws = filepath.Join(root, "wt")
	writeTree(t, []string{filepath.Join(common, "objects"), filepath.Join(common, "refs"), filepath.Join(common, "hooks"), gitDir, ws}, map[string]string{
		filepath.Join(common, "HEAD"):      "ref: refs/heads/main\n",
		filepath.Join(common, "config"):    "[core]\n",
		filepath.Join(gitDir, "commondir"): "../..\n",
		filepath.Join(gitDir, "gitdir"):    filepath.Join(ws, ".git") + "\n",
		filepath.Join(ws, ".git"):          "gitdir: " + gitDir + "\n",
	})
	return ws, common, gitDir
}

// writeTree makes dirs, then files with their contents.
func writeTree(t *testing.T, dirs []string, files map[string]string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, s := range files {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFindLinked: a linked worktree opens its git dir and common dir,
// and a submodule's checkout its repository in the superproject's
// .git/modules, which is its own common dir; their config and hooks are
// protected.
func TestFindLinked(t *testing.T) {
	for _, tc := range []struct {
		name   string
		layout func(t *testing.T) (ws, common, gitDir string)
	}{
		{"linked worktree", linkedLayout},
		{"submodule", func(t *testing.T) (string, string, string) {
			ws, gitDir := submoduleLayout(t)
			return ws, gitDir, gitDir
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, common, gitDir := tc.layout(t)
			l, err := FindLinked(ws)
			if err != nil || l.CommonDir != common || l.GitDir != gitDir {
				t.Fatalf("got %+v, %v", l, err)
			}
			set, err := For(ws)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{filepath.Join(ws, ".git"), filepath.Join(common, "config"), filepath.Join(common, "hooks")} {
				if !slices.Contains(set.Existing, want) {
					t.Errorf("%s not protected: %+v", want, set)
				}
			}
		})
	}
}

// A .git file is as easy to write as any workspace file, so it must not
// open a directory that is not really this worktree's git dir.
func TestFindLinkedRefusesForgedPointers(t *testing.T) {
	tests := []struct {
		name  string
		forge func(ws, common, gitDir string)
	}{
		{"points at a secret dir", func(ws, _, _ string) {
			other := filepath.Join(filepath.Dir(ws), ".ssh")
			os.MkdirAll(other, 0o700)
			os.WriteFile(filepath.Join(ws, ".git"), []byte("gitdir: "+other+"\n"), 0o644)
		}},
		{"git dir names another worktree", func(_, _, gitDir string) {
			os.WriteFile(filepath.Join(gitDir, "gitdir"), []byte("/elsewhere/.git\n"), 0o644)
		}},
		{"commondir points away", func(ws, _, gitDir string) {
			away := filepath.Join(filepath.Dir(ws), "away")
			os.MkdirAll(filepath.Join(away, "objects"), 0o755)
			os.WriteFile(filepath.Join(gitDir, "commondir"), []byte(away+"\n"), 0o644)
		}},
		{"common dir is not a git dir", func(_, common, _ string) { os.RemoveAll(filepath.Join(common, "objects")) }},
		{".git is a link", func(ws, _, gitDir string) {
			os.Remove(filepath.Join(ws, ".git"))
			os.Symlink(gitDir, filepath.Join(ws, ".git"))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws, common, gitDir := linkedLayout(t)
			tc.forge(ws, common, gitDir)
			if l, err := FindLinked(ws); err == nil {
				t.Fatalf("forged pointer accepted: %+v", l)
			}
		})
	}
	if _, err := FindLinked(t.TempDir()); !errors.Is(err, ErrNotLinked) {
		t.Errorf("a plain dir: %v", err)
	}
}

// submoduleLayout writes what `git submodule add` leaves: the
// submodule's repository in super/.git/modules/lib, naming its checkout
// back as core.worktree, and a checkout whose .git file points there.
func submoduleLayout(t *testing.T) (ws, gitDir string) {
	t.Helper()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	gitDir = filepath.Join(root, "super", ".git", "modules", "lib")
	ws = filepath.Join(root, "super", "lib")
	writeTree(t, []string{filepath.Join(gitDir, "objects"), filepath.Join(gitDir, "refs"), filepath.Join(gitDir, "hooks"), ws}, map[string]string{
		filepath.Join(gitDir, "HEAD"):   "ref: refs/heads/main\n",
		filepath.Join(gitDir, "config"): "[core]\n\tbare = false\n\tworktree = ../../../lib\n",
		filepath.Join(ws, ".git"):       "gitdir: ../.git/modules/lib\n",
	})
	return ws, gitDir
}

// TestFindLinkedRefusesForeignSubmodules: a submodule's repository is
// opened only when it names the checkout back as its worktree.
func TestFindLinkedRefusesForeignSubmodules(t *testing.T) {
	for _, tc := range []struct {
		name, config string
	}{
		{"names another worktree", "[core]\n\tworktree = ../../../other\n"},
		{"names none (a separate git dir)", "[core]\n\tbare = false\n"},
		{"a config git refuses", "[core]\n\tworktree = \"../../../lib\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, gitDir := submoduleLayout(t)
			if err := os.WriteFile(filepath.Join(gitDir, "config"), []byte(tc.config), 0o644); err != nil {
				t.Fatal(err)
			}
			if l, err := FindLinked(ws); err == nil {
				t.Fatalf("accepted: %+v", l)
			}
		})
	}
	t.Run("not a git dir", func(t *testing.T) {
		ws, gitDir := submoduleLayout(t)
		os.RemoveAll(filepath.Join(gitDir, "objects"))
		if l, err := FindLinked(ws); err == nil {
			t.Fatalf("accepted: %+v", l)
		}
	})
}
