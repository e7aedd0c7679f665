//go:build integration

package proof

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/gitguard"
)

// gitEnv is what a run needs for git to commit without the person's
// config: an identity and no system config.
var gitEnv = []string{
	"PATH=/usr/bin:/bin", "LC_ALL=C", "GIT_CONFIG_NOSYSTEM=1",
	"GIT_AUTHOR_NAME=Gate House", "GIT_AUTHOR_EMAIL=agent@example.test",
	"GIT_COMMITTER_NAME=Gate House", "GIT_COMMITTER_EMAIL=agent@example.test",
}

func hostGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), gitEnv[2:]...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// gitRepos makes an origin with one commit and returns a plain clone
// and a linked worktree of a second repository whose git dir lives
// outside that worktree.
func gitRepos(t *testing.T) (clone, linked, linkedCommon string) {
	root := t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	origin := filepath.Join(root, "origin")
	must(t, os.MkdirAll(origin, 0o755))
	hostGit(t, origin, "init", "-q", "-b", "main")
	must(t, os.WriteFile(filepath.Join(origin, "README"), []byte("hello\n"), 0o644))
	hostGit(t, origin, "add", "README")
	hostGit(t, origin, "commit", "-q", "-m", "first")
	clone = filepath.Join(root, "clone")
	hostGit(t, root, "clone", "-q", origin, clone)
	linked = filepath.Join(root, "elsewhere", "wt")
	hostGit(t, origin, "worktree", "add", "-q", "-b", "feature", linked)
	for _, ws := range []string{clone, linked} {
		// Landlock keeps the workspace root itself uncreatable, so new
		// files and worktrees go in a directory that exists.
		must(t, os.MkdirAll(filepath.Join(ws, "sub"), 0o755))
	}
	return clone, linked, filepath.Join(origin, ".git")
}

// gitWork is an agent's ordinary git use: add, commit, stash, a rebase
// and a new worktree. New files go in sub/: Landlock keeps the workspace
// root uncreatable.
const gitWork = `set -e
echo a > sub/a; git add sub/a; git commit -q -m a
echo b > sub/b; git add sub/b; git stash -q; git stash pop -q; git commit -q -m b
echo changed >> README; git commit -q -am readme
base=$(git rev-parse --abbrev-ref HEAD)
git checkout -q -b topic; echo t > sub/t; git add sub/t; git commit -q -m t
git checkout -q "$base"; echo m > sub/m; git add sub/m; git commit -q -m m
git checkout -q topic; git rebase -q "$base"
git worktree add -q sub/wt2 -b wt2
git -C sub/wt2 log --oneline -1
echo done
`

// gitAttack tries to plant a hook and a config entry the host's git
// would run: in the workspace's git dir and, for a linked worktree, in
// the common dir it shares.
const gitAttack = `common=$(git rev-parse --git-common-dir)
wrote=
for d in "$common" .git; do
  [ -d "$d" ] || continue
  echo 'touch /tmp/pwned' > "$d/hooks/pre-commit" && chmod +x "$d/hooks/pre-commit" && wrote=1
  printf '[core]\n\tfsmonitor = touch /tmp/pwned\n' >> "$d/config" && wrote=1
done
# A run whose write got through must not get to finish.
[ -z "$wrote" ] || sleep 10
echo survived`

func TestGitInsideSandbox(t *testing.T) {
	for _, b := range nativeBackends(t) {
		t.Run(b.Name(), func(t *testing.T) {
			clone, linked, common := gitRepos(t)
			for _, tc := range []struct {
				name, ws, gitDir string
			}{
				{"clone", clone, filepath.Join(clone, ".git")},
				{"linked worktree", linked, common},
			} {
				t.Run(tc.name, func(t *testing.T) {
					cfg := filepath.Join(tc.gitDir, "config")
					before, err := os.ReadFile(cfg)
					if err != nil {
						t.Fatal(err)
					}
					s := openSession(t, b, tc.ws)
					run := func(script string) sandbox.Result {
						r, err := s.Run(t.Context(), sandbox.Spec{Argv: []string{"sh", "-c", script}, Env: gitEnv, Limits: sandbox.DefaultLimits()})
						if err != nil {
							t.Fatal(err)
						}
						return r
					}
					r := run(gitWork)
					if r.ExitCode != 0 || !bytes.Contains(r.Stdout, []byte("done")) {
						t.Fatalf("git work failed (exit %d):\n%s\n%s", r.ExitCode, r.Stdout, r.Stderr)
					}
					if got := hostGit(t, tc.ws, "log", "--format=%s", "-5"); got != "t\nm\nreadme\nb\na" {
						t.Errorf("host sees history %q", got)
					}
					if len(r.Violations) > 0 {
						t.Errorf("honest git work flagged: %+v", r.Violations)
					}

					r = run(gitAttack)
					if _, err := os.Lstat(filepath.Join(tc.gitDir, "hooks", "pre-commit")); err == nil {
						t.Errorf("a hook was planted in %s", tc.gitDir)
					}
					if after, _ := os.ReadFile(cfg); !bytes.Equal(after, before) {
						t.Errorf("%s changed:\n%s", cfg, after)
					}
					if st, err := os.Stat(filepath.Join(tc.gitDir, "hooks")); err != nil || !st.IsDir() {
						t.Errorf("hooks dir gone: %v", err)
					}
					if b.Name() == "landlock" {
						// Landlock could not refuse the write; the guard must have
						// stopped the run and said so.
						if !r.Killed || r.KillReason != sandbox.KillProtected || len(r.Violations) == 0 || r.Violations[0].Kind != gitguard.ViolationKind {
							t.Errorf("landlock run not stopped for the protected write: killed=%v reason=%q violations=%+v\n%s", r.Killed, r.KillReason, r.Violations, r.Stderr)
						}
						if bytes.Contains(r.Stdout, []byte("survived")) || r.Duration > 5*time.Second {
							t.Errorf("the run went on after the write (%s):\n%s", r.Duration, r.Stdout)
						}
						t.Logf("stopped after %s: %s", r.Duration, r.Violations[0].Detail)
					} else if !bytes.Contains(r.Stderr, []byte("Read-only")) {
						t.Errorf("bwrap did not refuse the write with EROFS:\n%s", r.Stderr)
					}
					// And git still works after it. (sub/ now holds the worktree
					// made above, whose .git file Landlock keeps read-only by
					// carving sub/, so the change edits a file there.)
					if r := run(`echo c >> sub/a && git commit -q -am c && echo ok`); r.ExitCode != 0 {
						t.Errorf("git after the attack: exit %d\n%s", r.ExitCode, r.Stderr)
					}
				})
			}
		})
	}
}
