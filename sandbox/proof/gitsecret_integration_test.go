//go:build integration

package proof

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/bwrap"
)

// A tracked secret's stand-in is clean to git: it has the secret's size,
// mode and times, and the run's environment tells git to compare only
// those. So git in the sandbox neither commits it emptied, nor trips on
// its mount point resetting, stashing, rebasing or merging, staged or
// not. The container makes the same stand-ins (the same helper mounts
// them), but its test image has no git, so bwrap alone proves it here.
func TestTrackedSecretStandInCleanToGit(t *testing.T) {
	bw, err := bwrap.New(t.Context(), bwrap.Options{})
	if err != nil {
		t.Fatalf("bwrap backend unavailable: %v", err)
	}
	for _, b := range []sandbox.Backend{bw} {
		for _, staged := range []bool{false, true} {
			name := b.Name() + "/unstaged"
			if staged {
				name = b.Name() + "/staged"
			}
			t.Run(name, func(t *testing.T) { trackedSecretCleanToGit(t, b, staged) })
		}
	}
}

func trackedSecretCleanToGit(t *testing.T, b sandbox.Backend, staged bool) {
	ctx := t.Context()
	ws, root := t.TempDir(), t.TempDir()
	ws, _ = filepath.EvalSymlinks(ws)
	gitRepoWithSecret(t, ws)
	blob := hostGit(t, ws, "rev-parse", "HEAD:.env")
	s, err := b.Open(ctx, sandbox.SessionSpec{ID: "gitsecret", Workspaces: []string{ws}, StageRoot: root, Limits: SessionLimits()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	if staged {
		for _, d := range []string{sandbox.StageUpper(root, "r", 0), sandbox.StageWork(root, "r", 0)} {
			must(t, os.MkdirAll(d, 0o700))
		}
	}
	script := strings.Join([]string{
		"set -e",
		"g() { git -c user.name=t -c user.email=t@example.test \"$@\"; }",
		"echo STATUS; git status --porcelain",
		"echo more >> a.txt",
		"g commit -qam 'third'",
		"echo COMMITTED; git show --name-only --format= HEAD",
		"echo dirty >> a.txt",
		"g stash -q && g stash pop -q",
		"g reset -q --hard HEAD",
		"g checkout -q -b side HEAD~1 && echo side > b.txt && g add b.txt && g commit -qm side",
		"g rebase -q main",
		"g checkout -q main && g merge -q --no-edit side",
		"echo BLOB; git rev-parse HEAD:.env",
		"echo FINAL; git status --porcelain",
	}, "\n")
	spec := sandbox.Spec{Argv: []string{"sh", "-c", script}, Dir: ws,
		Env:    append([]string{"PATH=/usr/bin:/bin"}, sandbox.GitCoherentEnv...),
		Limits: sandbox.DefaultLimits()}
	if staged {
		spec.Stage = &sandbox.Stage{Dir: "r"}
	}
	r, err := s.Run(ctx, spec)
	out := string(r.Stdout) + string(r.Stderr)
	if err != nil || r.ExitCode != 0 {
		t.Fatalf("exit %d, %v\n%s", r.ExitCode, err, out)
	}
	for _, bad := range []string{"first-secret-value-1234", "second-secret-value-5678", " .env", "M .env"} {
		if strings.Contains(out, bad) {
			t.Errorf("output holds %q:\n%s", bad, out)
		}
	}
	if !strings.Contains(out, "BLOB\n"+blob+"\n") {
		t.Errorf(".env's blob changed (want %s):\n%s", blob, out)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, ".env")); string(got) != "API_KEY=second-secret-value-5678\n" {
		t.Errorf("the real .env changed: %q", got)
	}
}

// gitRepoWithSecret makes a repository on branch main whose .env was
// committed with one value, then changed to another in a second commit.
func gitRepoWithSecret(t *testing.T, ws string) {
	t.Helper()
	must(t, os.WriteFile(filepath.Join(ws, ".env"), []byte("API_KEY=first-secret-value-1234\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a\n"), 0o644))
	hostGit(t, ws, "init", "-q", "-b", "main")
	hostGit(t, ws, "add", ".")
	hostGit(t, ws, "commit", "-qm", "first")
	must(t, os.WriteFile(filepath.Join(ws, ".env"), []byte("API_KEY=second-secret-value-5678\n"), 0o644))
	hostGit(t, ws, "commit", "-qam", "second")
}

// On each backend that stages, a staged run's stand-in for a secret has
// the secret's size, mode and modification time, and none of its
// content: what git compares under core.checkStat=minimal. (The
// container's test image has no git; this is the part that matters.)
func TestStagedSecretStandInMatchesStat(t *testing.T) {
	for _, b := range stagingBackends(t) {
		t.Run(b.Name(), func(t *testing.T) {
			ws, root := t.TempDir(), t.TempDir()
			ws, _ = filepath.EvalSymlinks(ws)
			p := filepath.Join(ws, ".env")
			must(t, os.WriteFile(p, []byte("API_KEY=stand-in-secret-31337\n"), 0o640))
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			s, err := b.Open(t.Context(), sandbox.SessionSpec{ID: "standin", Workspaces: []string{ws}, StageRoot: root, Limits: SessionLimits()})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close(t.Context())
			for _, d := range []string{sandbox.StageUpper(root, "r", 0), sandbox.StageWork(root, "r", 0)} {
				must(t, os.MkdirAll(d, 0o700))
			}
			r := runSh(t, s, `stat -c '%s %Y %a' .env; cat .env`, func(sp *sandbox.Spec) { sp.Stage = &sandbox.Stage{Dir: "r"}; sp.Dir = ws })
			want := fmt.Sprintf("%d %d %o\n", fi.Size(), fi.ModTime().Unix(), fi.Mode().Perm())
			out := string(r.Stdout)
			if !strings.HasPrefix(out, want) || strings.Contains(out, "stand-in-secret") {
				t.Errorf("stand-in %q (stderr %q), want stat %q and no secret", out, r.Stderr, want)
			}
		})
	}
}
