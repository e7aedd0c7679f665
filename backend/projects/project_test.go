package projects

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestOf: the project is the git top-level above the agent's directory,
// or the directory; links resolve; the search stops below home.
func TestOf(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	home := filepath.Join(base, "home")
	repo := filepath.Join(home, "src", "app")
	plain := filepath.Join(home, "notes", "sub")
	wt := filepath.Join(home, "src", "worktree")
	// An empty .git (a mount target another sandbox left) is no repository.
	leftover := filepath.Join(home, "tmp", "proj")
	for _, d := range []string{filepath.Join(repo, ".git"), filepath.Join(repo, "pkg", "deep"), plain, wt, filepath.Join(home, ".git"), filepath.Join(home, "tmp", ".git"), leftover} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{repo, home} {
		os.WriteFile(filepath.Join(d, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	}
	os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: elsewhere\n"), 0o644)
	os.Symlink(repo, filepath.Join(base, "link"))
	os.WriteFile(filepath.Join(base, "file"), nil, 0o644)
	tests := []struct {
		dir, want string
		bad       bool
	}{
		{repo, repo, false},
		{filepath.Join(repo, "pkg", "deep"), repo, false},
		{filepath.Join(base, "link", "pkg"), repo, false},
		{wt, wt, false},
		{leftover, leftover, false},
		// home is in git (dotfiles): a plain directory is its own project.
		{plain, plain, false},
		{filepath.Join(base, "missing"), "", true},
		{filepath.Join(base, "file"), "", true},
	}
	for _, tt := range tests {
		got, err := Of(tt.dir, home)
		if (err != nil) != tt.bad || got != tt.want {
			t.Errorf("Of(%s) = %q, %v; want %q (error %v)", tt.dir, got, err, tt.want, tt.bad)
		}
	}
	// One plain sentence, the system call's words kept for the logs.
	_, err := Of(filepath.Join(base, "missing"), home)
	if want := "the agent's directory " + filepath.Join(base, "missing") + " does not exist"; err == nil || err.Error() != want || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing directory: %v, want %q wrapping ErrNotExist", err, want)
	}
}

// TestRefuse: no card may allow the system, the home directory or what
// holds it, or what overlaps the data dir.
func TestRefuse(t *testing.T) {
	tests := []struct {
		project string
		bad     bool
	}{
		{"/", true},
		{"/etc", true},
		{"/home", true},
		{"/home/me", true},
		{"/home/me/src/app", false},
		{"/home/me/.local/share/gatehouse", true},
		{"/home/me/.local", true},
		{"/srv/app", false},
		{"/home/me/.ssh", true},
		{"/home/me/.ssh/keys", true},
		{"/home/me/.aws", true},
		{"/home/me/.config", true}, // holds ~/.config/gh
		{"/home/me/.config/myapp", false},
		{"/home/me/.mozilla/firefox", true},
	}
	for _, tt := range tests {
		err := Refuse(tt.project, "/home/me", "/home/me/.local/share/gatehouse")
		if (err != nil) != tt.bad || (err != nil && !errors.Is(err, ErrTooBroad)) {
			t.Errorf("Refuse(%s) = %v, want refused %v", tt.project, err, tt.bad)
		}
	}
}
