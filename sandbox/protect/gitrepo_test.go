package protect

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// files writes each path (relative to root) with its content; a name
// ending in / is a directory.
func files(t *testing.T, root string, m map[string]string) {
	t.Helper()
	for p, body := range m {
		full := filepath.Join(root, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			must(t, os.MkdirAll(full, 0o755))
			continue
		}
		must(t, os.MkdirAll(filepath.Dir(full), 0o755), os.WriteFile(full, []byte(body), 0o644))
	}
}

// gitDirLayout is the least that makes a directory a git dir.
func gitDirLayout(dir, config string) map[string]string {
	return map[string]string{dir + "/HEAD": "ref: refs/heads/main\n", dir + "/objects/": "", dir + "/config": config}
}

func merged(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

type setWant struct {
	existing, missing, writable, absent []string // relative to the workspace
}

func checkSet(t *testing.T, ws string, s Set, w setWant) {
	t.Helper()
	rel := func(l []string) []string {
		var out []string
		for _, p := range l {
			r, _ := filepath.Rel(ws, p)
			out = append(out, filepath.ToSlash(r))
		}
		return out
	}
	ex, mi, wr := rel(s.Existing), rel(s.Missing), rel(s.Writable)
	for _, p := range w.existing {
		if !slices.Contains(ex, p) {
			t.Errorf("existing lacks %s: %v", p, ex)
		}
	}
	for _, p := range w.missing {
		if !slices.Contains(mi, p) {
			t.Errorf("missing lacks %s: %v", p, mi)
		}
	}
	for _, p := range w.writable {
		if !slices.Contains(wr, p) {
			t.Errorf("writable lacks %s: %v", p, wr)
		}
	}
	for _, p := range w.absent {
		if slices.Contains(ex, p) || slices.Contains(mi, p) || slices.Contains(wr, p) {
			t.Errorf("%s is listed, and should not be", p)
		}
	}
}

func TestForGitRepositories(t *testing.T) {
	outside := t.TempDir()
	files(t, outside, map[string]string{"other.gitconfig": "[core]\n\thooksPath = from-outside\n"})
	tests := []struct {
		name  string
		files map[string]string
		home  map[string]string // the person's home
		want  setWant
	}{
		{
			name:  "hooksPath set by husky, not made yet",
			files: gitDirLayout(".git", "[core]\n\thooksPath = .husky/_\n"),
			want: setWant{
				existing: []string{".git/config"},
				missing:  []string{".husky", ".git/hooks", ".git/commondir", ".git/config.worktree", ".git/modules", ".pre-commit-config.yaml"},
				absent:   []string{"lefthook.yml", ".huskyrc", ".config"},
			},
		},
		{
			name:  "lefthook installed in git's hooks",
			files: merged(gitDirLayout(".git", ""), map[string]string{".git/hooks/pre-commit": "#!/bin/sh\nlefthook run pre-commit \"$@\"\n", ".git/hooks/pre-push.sample": "husky"}),
			want:  setWant{missing: []string{"lefthook.yml", ".lefthook-local.toml", ".lefthook", ".config"}, absent: []string{".huskyrc"}},
		},
		{
			name:  "lefthook configured, not installed yet",
			files: merged(gitDirLayout(".git", ""), map[string]string{"lefthook.yml": "pre-commit: {}\n"}),
			want:  setWant{existing: []string{"lefthook.yml"}, missing: []string{".lefthook.json", "lefthook-local.yml"}},
		},
		{
			name:  "husky's older config, hooks in the hooks path",
			files: merged(gitDirLayout(".git", "[core]\nhooksPath = .husky\n"), map[string]string{".husky/pre-commit": "#!/bin/sh\n. \"$(dirname \"$0\")/_/husky.sh\"\n"}),
			want:  setWant{existing: []string{".husky"}, missing: []string{".huskyrc.json", "husky.config.js"}, absent: []string{"lefthook.yml"}},
		},
		{
			name:  "hooksPath in a directory that exists",
			files: merged(gitDirLayout(".git", "[core]\nhooksPath = tools/githooks\n"), map[string]string{"tools/": ""}),
			want:  setWant{missing: []string{"tools/githooks"}, absent: []string{"tools"}},
		},
		{
			name:  "hooksPath under a directory that does not exist",
			files: gitDirLayout(".git", "[core]\nhooksPath = a/b/hooks\n"),
			want:  setWant{missing: []string{"a"}},
		},
		{
			name:  "absolute hooksPath inside, and one outside",
			files: gitDirLayout(".git", "[core]\nhooksPath = WS/hooks-abs\nhooksPath = "+outside+"/hooks\n"),
			want:  setWant{missing: []string{"hooks-abs"}},
		},
		{
			name: "include inside the repository, existing and not",
			files: merged(gitDirLayout(".git", "[include]\npath = ../shared.gitconfig\npath = ../local.gitconfig\n[includeIf \"onbranch:main\"]\npath = ../cond.gitconfig\n"),
				map[string]string{"shared.gitconfig": "[core]\nhooksPath = .githooks\n", "cond.gitconfig": "[core]\nhooksPath = cond-hooks\n"}),
			want: setWant{existing: []string{"shared.gitconfig", "cond.gitconfig"}, missing: []string{"local.gitconfig", ".githooks", "cond-hooks"}},
		},
		{
			name:  "include outside the repository is not followed",
			files: gitDirLayout(".git", "[include]\npath = "+outside+"/other.gitconfig\n"),
			want:  setWant{absent: []string{"from-outside"}},
		},
		{
			name:  "the person's global hooksPath",
			files: gitDirLayout(".git", ""),
			home:  map[string]string{".gitconfig": "[core]\nhooksPath = .global-hooks\n"},
			want:  setWant{missing: []string{".global-hooks"}},
		},
		{
			name: "submodules, nested and with slashes in their names",
			files: merged(gitDirLayout(".git", ""),
				gitDirLayout(".git/modules/sub", "[core]\n\tworktree = ../../../sub\n\thooksPath = .husky\n"),
				gitDirLayout(".git/modules/sub/modules/inner", "[core]\n\tworktree = ../../../../../sub/inner\n"),
				gitDirLayout(".git/modules/lib/foo", ""),
				map[string]string{".git/modules/sub/hooks/post-checkout": "#!/bin/sh\n", "sub/.git": "gitdir: ../.git/modules/sub\n", "sub/inner/.git": "gitdir: ../../.git/modules/sub/modules/inner\n"}),
			want: setWant{
				existing: []string{".git/modules", ".git/modules/sub/hooks", ".git/modules/sub/config", ".git/modules/sub/modules",
					".git/modules/sub/modules/inner/config", ".git/modules/lib", ".git/modules/lib/foo/config", "sub/.git", "sub/inner/.git"},
				missing:  []string{".git/modules/sub/commondir", ".git/modules/sub/modules/inner/hooks", ".git/modules/lib/foo/hooks", "sub/.husky"},
				writable: []string{".git/modules/sub", ".git/modules/sub/modules/inner", ".git/modules/lib/foo"},
			},
		},
		{
			name: "linked worktrees, one inside the workspace",
			files: merged(gitDirLayout(".git", "[core]\nhooksPath = .husky\n"), map[string]string{
				".git/worktrees/in/gitdir": "WS/wt-in/.git\n", ".git/worktrees/in/commondir": "../..\n", ".git/worktrees/in/HEAD": "x",
				".git/worktrees/out/gitdir": outside + "/wt/.git\n", ".git/worktrees/out/config.worktree": "",
				"wt-in/.git": "gitdir: ../.git/worktrees/in\n",
			}),
			want: setWant{
				existing: []string{".git/worktrees/in/gitdir", ".git/worktrees/in/commondir", ".git/worktrees/out/config.worktree", "wt-in/.git"},
				missing:  []string{".git/worktrees/in/config.worktree", ".git/worktrees/out/commondir", "wt-in/.husky", ".husky"},
			},
		},
		{
			name:  "no repository: none may be made",
			files: map[string]string{"main.go": ""},
			want:  setWant{missing: []string{".git"}, absent: []string{".git/hooks"}},
		},
		{
			name:  "a .git file pointing outside",
			files: map[string]string{".git": "gitdir: " + outside + "/gitdir\n"},
			want:  setWant{existing: []string{".git"}},
		},
		{
			name:  "lefthook's .config location when .config exists",
			files: merged(gitDirLayout(".git", ""), map[string]string{".config/": "", ".git/hooks/pre-commit": "lefthook"}),
			want:  setWant{missing: []string{".config/lefthook.yml", ".config/lefthook.toml"}, absent: []string{".config"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			home := t.TempDir()
			fs := map[string]string{}
			for k, v := range tc.files {
				fs[k] = strings.ReplaceAll(v, "WS", ws)
			}
			files(t, ws, fs)
			files(t, home, tc.home)
			t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			s, err := forHome(ws, home)
			must(t, err)
			checkSet(t, ws, s, tc.want)
		})
	}
}

func TestForRefusesAConfigGitRefuses(t *testing.T) {
	ws := t.TempDir()
	files(t, ws, gitDirLayout(".git", "[core]\n\thooksPath = \"unterminated\n"))
	_, err := forHome(ws, t.TempDir())
	if !errors.Is(err, errGitConfig) || !strings.Contains(err.Error(), ".git/config") {
		t.Fatalf("got %v, want a bad-config error naming the file", err)
	}
	// An include that is a FIFO neither blocks nor is read.
	ws2 := t.TempDir()
	files(t, ws2, gitDirLayout(".git", "[include]\npath = ../fifo\n"))
	must(t, mkfifo(filepath.Join(ws2, "fifo")))
	if _, err := forHome(ws2, t.TempDir()); err == nil {
		t.Fatal("a FIFO include was accepted")
	}
}

// With the real git: a repository husky set up, a submodule added and a
// linked worktree made inside the workspace, as git itself lays them out.
func TestForRealGit(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skipf("git is not installed: %v", err)
	}
	root := t.TempDir()
	home := filepath.Join(root, "home")
	must(t, os.Mkdir(home, 0o755))
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command(gitBin, args...)
		cmd.Dir = dir
		cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.test", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.test"}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	lib := filepath.Join(root, "lib")
	must(t, os.Mkdir(lib, 0o755))
	git(lib, "init", "-q", "-b", "main")
	git(lib, "commit", "-q", "--allow-empty", "-m", "lib")
	ws := filepath.Join(root, "ws")
	must(t, os.Mkdir(ws, 0o755))
	git(ws, "init", "-q", "-b", "main")
	git(ws, "config", "core.hooksPath", ".husky/_")
	git(ws, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "vendor/lib")
	git(ws, "commit", "-q", "-m", "sub")
	git(ws, "worktree", "add", "-q", "wt", "-b", "side")
	s, err := forHome(ws, home)
	must(t, err)
	checkSet(t, ws, s, setWant{
		existing: []string{".git/config", ".git/hooks", ".git/modules", ".git/modules/vendor", ".git/modules/vendor/lib/config",
			".git/modules/vendor/lib/hooks", "vendor/lib/.git", ".git/worktrees/wt/commondir", ".git/worktrees/wt/gitdir", "wt/.git"},
		missing:  []string{".husky", ".git/commondir", "wt/.husky", ".git/modules/vendor/lib/commondir", ".git/modules/vendor/lib/modules"},
		writable: []string{".git/modules/vendor/lib"},
	})
}
