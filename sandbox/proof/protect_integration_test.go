//go:build integration

package proof

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox"
)

func runSh(t *testing.T, s sandbox.Session, script string, mod func(*sandbox.Spec)) sandbox.Result {
	t.Helper()
	spec := sandbox.Spec{Argv: []string{"sh", "-c", script}, Env: []string{"PATH=/usr/bin:/bin", "LC_ALL=C"}, Limits: sandbox.DefaultLimits()}
	if mod != nil {
		mod(&spec)
	}
	r, err := s.Run(t.Context(), spec)
	if err != nil {
		t.Fatalf("%s: %v", script, err)
	}
	return r
}

// What each backend shows for a protected name that does not exist
// (.envrc), operation by operation, in a session that writes the
// workspace itself: the README's table. Creating it fails everywhere,
// and no backend shows it (a container without Gatehouse's static
// helper would: a placeholder).
func TestMissingProtectedNameSemantics(t *testing.T) {
	ops := []struct{ name, script string }{
		{"ls -a", `ls -a | grep -qx .envrc && echo listed || echo absent`},
		{"cat", `cat .envrc >/dev/null 2>&1 && echo read || echo absent`},
		{"test -e", `test -e .envrc && echo exists || echo absent`},
		{"echo > x", `echo x > .envrc 2>/dev/null && echo created || echo refused`},
		{"mkdir x", `mkdir .envrc 2>/dev/null && echo created || echo refused`},
		{"ln -s", `ln -s y .envrc 2>/dev/null && echo created || echo refused`},
		{"mv y x", `echo y > y; mv -f y .envrc 2>/dev/null && echo created || echo refused`},
	}
	want := map[string]map[string]string{
		"bwrap":     {"ls -a": "absent", "cat": "absent", "test -e": "absent"},
		"landlock":  {"ls -a": "absent", "cat": "absent", "test -e": "absent"},
		"container": {"ls -a": "absent", "cat": "absent", "test -e": "absent"},
	}
	for _, b := range allBackends(t) {
		t.Run(b.Name(), func(t *testing.T) {
			ws := t.TempDir()
			must(t, os.Mkdir(filepath.Join(ws, ".git"), 0o755))
			s := openSession(t, b, ws)
			var row []string
			for _, op := range ops {
				got := strings.TrimSpace(string(runSh(t, s, op.script, nil).Stdout))
				row = append(row, op.name+": "+got)
				w := want[b.Name()][op.name]
				if w == "" {
					w = "refused"
				}
				if got != w {
					t.Errorf("%s: %s, want %s", op.name, got, w)
				}
			}
			t.Logf("%s: %s", b.Name(), strings.Join(row, "; "))
			if _, err := os.Lstat(filepath.Join(ws, ".envrc")); err == nil && b.Name() != "container" {
				t.Errorf("a placeholder stayed in the workspace after the run")
			}
		})
	}
}

// The person exposes one secret; the rest stay hidden. A secret the
// person adds between two calls is hidden from the second, and what a
// command writes into an exposed one is kept.
func TestExposeSecretsAndNewSecrets(t *testing.T) {
	for _, b := range allBackends(t) {
		t.Run(b.Name(), func(t *testing.T) {
			ws := t.TempDir()
			must(t, os.Mkdir(filepath.Join(ws, ".git"), 0o755),
				os.WriteFile(filepath.Join(ws, ".env"), []byte("HIDDEN=1\n"), 0o600),
				os.Mkdir(filepath.Join(ws, "testdata"), 0o755),
				os.WriteFile(filepath.Join(ws, "testdata", "server.key"), []byte("FIXTURE\n"), 0o644))
			s, err := b.Open(t.Context(), sandbox.SessionSpec{ID: "expose", Workspaces: []string{ws}, Limits: SessionLimits(), ExposeSecrets: []string{"testdata/"}})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close(t.Context())
			r := runSh(t, s, `cat .env testdata/server.key 2>&1`, nil)
			if strings.Contains(string(r.Stdout), "HIDDEN") || !strings.Contains(string(r.Stdout), "FIXTURE") {
				t.Fatalf("first call read %q", r.Stdout)
			}
			must(t, os.WriteFile(filepath.Join(ws, "id_ed25519"), []byte("PRIVATE\n"), 0o600))
			r = runSh(t, s, `cat id_ed25519 2>&1; echo more >> testdata/server.key`, nil)
			if strings.Contains(string(r.Stdout), "PRIVATE") {
				t.Fatalf("a secret added between calls was read: %q", r.Stdout)
			}
			if b, _ := os.ReadFile(filepath.Join(ws, "testdata", "server.key")); string(b) != "FIXTURE\nmore\n" {
				t.Errorf("write to an exposed secret: %q", b)
			}
			// A run can be let read one more (bwrap and Landlock); the
			// container, whose mounts are fixed, refuses rather than lie.
			r2, err := s.Run(t.Context(), sandbox.Spec{Argv: []string{"cat", ".env"}, ExposeSecrets: []string{".env"}, Limits: sandbox.DefaultLimits()})
			switch {
			case b.Name() == "container":
				if err == nil {
					t.Errorf("the container ran with a secret it hides exposed: %q", r2.Stdout)
				}
			case err != nil || string(r2.Stdout) != "HIDDEN=1\n":
				t.Errorf("exposed for one run: %q %v", r2.Stdout, err)
			}
		})
	}
}

// Submodules' git dirs stay usable: objects and refs can be written,
// only their hooks and config are read-only. And git itself runs in a
// repository with husky's hooks path and a submodule, on every backend
// that can write .git (not Landlock: see its known limits).
func TestGitStillWorks(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Fatalf("git is required for this test: %v", err)
	}
	for _, b := range nativeBackends(t) {
		t.Run(b.Name(), func(t *testing.T) {
			ws := t.TempDir()
			git := func(args ...string) {
				cmd := exec.Command(gitBin, args...)
				cmd.Dir = ws
				cmd.Env = []string{"HOME=" + ws, "PATH=/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM=1"}
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
			git("init", "-q")
			git("config", "core.hooksPath", ".husky")
			must(t, os.MkdirAll(filepath.Join(ws, ".git", "modules", "x", "objects"), 0o755),
				os.MkdirAll(filepath.Join(ws, ".git", "modules", "x", "hooks"), 0o755),
				os.WriteFile(filepath.Join(ws, ".git", "modules", "x", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644),
				os.WriteFile(filepath.Join(ws, ".git", "modules", "x", "config"), []byte("[core]\n"), 0o644),
				os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a\n"), 0o644))
			s := openSession(t, b, ws)
			env := func(sp *sandbox.Spec) {
				sp.Env = append(sp.Env, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.test", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.test", "HOME="+ws)
			}
			r := runSh(t, s, `echo ok > .git/modules/x/objects/o && cat .git/modules/x/objects/o`, nil)
			if strings.TrimSpace(string(r.Stdout)) != "ok" || r.Killed || len(r.Violations) > 0 {
				t.Errorf("a submodule's objects are not writable (exit %d, killed %v %q, violations %+v): %q %q", r.ExitCode, r.Killed, r.KillReason, r.Violations, r.Stdout, r.Stderr)
			}
			if b.Name() == "landlock" {
				return
			}
			r = runSh(t, s, `git add a.txt && git commit -q -m one && git log --oneline | wc -l`, env)
			if strings.TrimSpace(string(r.Stdout)) != "1" {
				t.Errorf("git commit in the sandbox: %q %q", r.Stdout, r.Stderr)
			}
		})
	}
}

// A command that only reads runs on bwrap with the workspace read-only:
// it lists exactly what is there (no placeholders), and every write,
// protected name or not, is refused by the kernel. The next ordinary run
// of the same session writes as usual.
func TestReadOnlyRunSeesTheWorkspace(t *testing.T) {
	b := newBwrap(t)
	ws := t.TempDir()
	must(t, os.Mkdir(filepath.Join(ws, ".git"), 0o755))
	must(t, os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a\n"), 0o644))
	must(t, os.Mkdir(filepath.Join(ws, "sub"), 0o755))
	s := openSession(t, b, ws)
	readOnly := func(s *sandbox.Spec) { s.ReadOnlyWorkspaces = true }

	if got := strings.Fields(string(runSh(t, s, "ls -A", readOnly).Stdout)); strings.Join(got, " ") != ".git a.txt sub" {
		t.Fatalf("a read-only run lists %q, want the workspace as it is (.git a.txt sub)", got)
	}
	for _, w := range []string{"echo x > a.txt", "echo x > new.txt", "echo x > sub/new.txt", "echo x > .envrc",
		"mkdir .envrc", "mkdir .git/hooks", "rm a.txt", "mv a.txt b.txt", "ln -s /etc .mcp.json"} {
		r := runSh(t, s, w+" 2>/dev/null && echo done || echo refused", readOnly)
		if got := strings.TrimSpace(string(r.Stdout)); got != "refused" {
			t.Errorf("%s in a read-only run: %s", w, got)
		}
	}
	ents, _ := os.ReadDir(ws)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != ".git a.txt sub" {
		t.Fatalf("the workspace holds %v after the read-only runs", names)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "a\n" {
		t.Fatalf("a.txt is %q", b)
	}
	if got := strings.TrimSpace(string(runSh(t, s, "echo b > b.txt && cat b.txt", nil).Stdout)); got != "b" {
		t.Fatalf("an ordinary run after the read-only ones: %q", got)
	}
}

// A command that moves the directory holding protected paths away and
// makes a new one must not leave git a new config to read: the
// protected paths' parents stay where they are, on every backend.
func TestProtectedParentsStay(t *testing.T) {
	for _, b := range allBackends(t) {
		t.Run(b.Name(), func(t *testing.T) {
			ws := t.TempDir()
			must(t, os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755),
				os.WriteFile(filepath.Join(ws, ".git", "config"), []byte("[core]\n"), 0o644))
			s := openSession(t, b, ws)
			r := runSh(t, s, `mv .git .git2 2>&1; mkdir -p .git 2>&1; echo '[core] fsmonitor = evil' > .git/config 2>&1; `+
				`rm -rf .git 2>&1; ln -s evil .git 2>&1; exit 0`, nil)
			t.Logf("%s: %s", b.Name(), strings.TrimSpace(string(r.Stdout)))
			if got, _ := os.ReadFile(filepath.Join(ws, ".git", "config")); string(got) != "[core]\n" {
				t.Errorf(".git/config is now %q", got)
			}
			if st, err := os.Lstat(filepath.Join(ws, ".git")); err != nil || !st.IsDir() {
				t.Errorf(".git was replaced: %v", err)
			}
			if _, err := os.Lstat(filepath.Join(ws, ".git2")); err == nil {
				t.Errorf(".git was renamed to .git2")
			}
		})
	}
}

// Creating a protected name that does not exist fails every way a shell
// has, on every backend, in a session that writes the workspace itself:
// each attempt ran, said it was refused, and the name is still absent
// on the host after it. (bwrap's TestCreationGuardRefuses adds the ways
// a shell has not.)
func TestCreationRefusedEveryWay(t *testing.T) {
	attempts := []struct{ name, script string }{
		{"redirect", `echo evil > .envrc`},
		{"absolute", `echo evil > "$WS/.envrc"`},
		{"touch", `touch .envrc`},
		{"cp", `echo evil > src; cp src .envrc`},
		{"proc self cwd", `sh -c 'echo evil > /proc/self/cwd/.envrc'`},
		{"proc pid cwd", `echo evil > /proc/$$/cwd/.envrc`},
		{"dot-dot", `mkdir -p sub/deeper && cd sub/deeper && echo evil > ../../.envrc`},
		{"directory link", `ln -sfn . d && echo evil > d/.envrc`},
		{"dangling link", `ln -sf .envrc dl && echo evil > dl`},
		{"absolute dangling link", `ln -sf "$WS/.envrc" adl && echo evil > adl`},
		{"chained links", `ln -sf l2 l1 && ln -sf .envrc l2 && echo evil > l1`},
		{"mkdir", `mkdir .envrc`},
		{"mkfifo", `mkfifo .envrc`},
		{"symlink", `ln -s /etc/passwd .envrc`},
		{"hard link", `echo evil > src; ln src .envrc`},
		{"rename", `echo evil > src; mv -f src .envrc`},
		{"rename a directory", `mkdir -p dsrc && mv dsrc .envrc`},
		{"git hooks", `mkdir .git/hooks`},
		{"git hooks via a link", `ln -sfn .git g && mkdir g/hooks`},
	}
	for _, b := range allBackends(t) {
		t.Run(b.Name(), func(t *testing.T) {
			ws := t.TempDir()
			ws, _ = filepath.EvalSymlinks(ws)
			must(t, os.Mkdir(filepath.Join(ws, ".git"), 0o755), os.WriteFile(filepath.Join(ws, ".git", "config"), []byte("[core]\n"), 0o644))
			s := openSession(t, b, ws)
			for _, a := range attempts {
				r := runSh(t, s, a.script+`; echo "exit $?"`, func(sp *sandbox.Spec) {
					sp.Dir, sp.Env = ws, append(sp.Env, "WS="+ws)
				})
				out := string(r.Stdout) + string(r.Stderr)
				for _, p := range []string{".envrc", ".git/hooks"} {
					if _, err := os.Lstat(filepath.Join(ws, p)); err == nil {
						t.Errorf("%s: %s was created: %s", a.name, p, out)
						os.RemoveAll(filepath.Join(ws, p))
					}
				}
				// Landlock lets .git gain entries, and its git guard takes
				// back a protected one after the run (see its known limits).
				undone := b.Name() == "landlock" && strings.HasPrefix(a.name, "git")
				if strings.Contains(out, "exit 0") && !undone {
					t.Errorf("%s: not refused: %s", a.name, out)
				}
			}
			// The process that decides creations (the run's first, or
			// the container's supervising helper) is the target's parent,
			// and the kernel keeps the target out of it: an open with
			// O_CREAT, which that process makes, must not open a way in.
			r := runSh(t, s, `exec 3<>/proc/$PPID/mem && echo OPENED-mem; (exec 3>>/proc/$PPID/cwd/escaped) 2>/dev/null && echo OPENED-cwd; true`, nil)
			if strings.Contains(string(r.Stdout), "OPENED") {
				t.Errorf("the run reached its parent through an open: %s", r.Stdout)
			}
		})
	}
}

// A protected name the person makes while a session is open is read-only
// in the session's next call, on every backend, though it was missing
// (and uncreatable) when the session began.
func TestProtectedNameMadeMidSession(t *testing.T) {
	for _, b := range allBackends(t) {
		t.Run(b.Name(), func(t *testing.T) {
			ws := t.TempDir()
			ws, _ = filepath.EvalSymlinks(ws)
			must(t, os.Mkdir(filepath.Join(ws, ".git"), 0o755))
			s := openSession(t, b, ws)
			runSh(t, s, `true`, nil)
			must(t, os.WriteFile(filepath.Join(ws, ".envrc"), []byte("export A=1\n"), 0o644))
			r := runSh(t, s, `echo evil >> .envrc; echo evil > .envrc; true`, func(sp *sandbox.Spec) { sp.Dir = ws })
			if got, _ := os.ReadFile(filepath.Join(ws, ".envrc")); string(got) != "export A=1\n" {
				t.Errorf(".envrc the person made mid-session was written: %q (%s)", got, r.Stderr)
			}
		})
	}
}

// A workspace whose path holds a comma, a colon and a space, with copies
// of its .env that editors and people leave (.env~, .env-old) and two
// whose names the container CLI's mount syntax would once cut: every
// backend runs there, and none shows a secret.
func TestAwkwardNamesStayHidden(t *testing.T) {
	for _, b := range allBackends(t) {
		t.Run(b.Name(), func(t *testing.T) {
			ws := filepath.Join(t.TempDir(), "we:ird, ü dir")
			secrets := []string{".env", ".env~", ".env-old", ".env,old", ".env:bak", "sub dir/.env_prod"}
			must(t, os.MkdirAll(filepath.Join(ws, "sub dir"), 0o755), os.WriteFile(filepath.Join(ws, "plain.txt"), []byte("PLAIN\n"), 0o644))
			for i, p := range secrets {
				must(t, os.WriteFile(filepath.Join(ws, p), []byte(fmt.Sprintf("KEY=SECRET-%d\n", i)), 0o600))
			}
			s := openSession(t, b, ws)
			r := runSh(t, s, `pwd; cat plain.txt; for f in .env* "sub dir"/.env*; do cat "$f"; done 2>&1; exit 0`, nil)
			out := string(r.Stdout) + string(r.Stderr)
			if !strings.Contains(out, ws) || !strings.Contains(out, "PLAIN") {
				t.Fatalf("the command did not run in the workspace: %q", out)
			}
			if strings.Contains(out, "SECRET-") {
				t.Errorf("a secret was read: %q", out)
			}
		})
	}
}
