//go:build integration

package snapshot

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// requireTool fails (never skips) when a tool the test drives is missing.
func requireTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Fatalf("%s is required for this integration test but is not installed: %v", name, err)
	}
}

func sh(t *testing.T, dir, script string) string {
	t.Helper()
	cmd := exec.Command("sh", "-ec", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	return string(out)
}

// gitWorkspace builds a real repository with two commits, 500 text files,
// an executable, a symlink and a binary file.
func gitWorkspace(t *testing.T) string {
	ws := t.TempDir()
	for i := range 500 {
		writeFile(t, ws, fmt.Sprintf("src/m%d/f%03d.txt", i%10, i), fmt.Sprintf("foo line %d\nsecond foo\n", i), 0o644)
	}
	writeFile(t, ws, "README.md", "# repo\n", 0o644)
	writeFile(t, ws, "run.sh", "#!/bin/sh\necho run\n", 0o755)
	sh(t, ws, `
		head -c 65536 /dev/urandom > blob.bin
		ln -s README.md readme-link
		git init -q -b main .
		git add -A && git commit -q -m one
		echo "more" >> README.md && echo new > added.txt
		git add -A && git commit -q -m two`)
	return ws
}

func TestRealMutationsRollBackExactly(t *testing.T) {
	requireTool(t, "git")
	cases := []struct{ name, script string }{
		{"rm -rf src", `rm -rf src`},
		{"git reset --hard HEAD~1", `git reset -q --hard HEAD~1`},
		{"git commit --amend", `echo amended >> README.md && git commit -q -a --amend -m amended`},
		{"sed -i over 500 files", `find src -name '*.txt' -exec sed -i 's/foo/bar/g' {} +`},
		{"rename storm", `for f in src/m1/*.txt src/m2/*.txt; do mv "$f" "${f%.txt}.md"; done; mv src/m3 src/m3-renamed`},
		{"file replaced by symlink to /etc/passwd", `rm README.md && ln -s /etc/passwd README.md`},
		{"binary rewrite", `head -c 70000 /dev/urandom > blob.bin`},
		{"new empty directory", `mkdir -p newdir/empty`},
		{"chmod -x", `chmod -x run.sh`},
		{"git gc packs and prunes objects", `git gc -q --prune=now`},
		{"git checkout -b and commit", `git checkout -q -b feature && echo x > feature.txt && git add feature.txt && git commit -q -m feat`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws := gitWorkspace(t)
			s := openStore(t, t.TempDir(), Options{})
			want := readState(t, ws)
			head := sh(t, ws, "git rev-parse HEAD; git status --porcelain")
			pre := mustCheckpoint(t, s, Request{Session: "s", CallID: "c", Phase: Pre, Roots: []string{ws}})
			sh(t, ws, tc.script)
			if diffState(want, readState(t, ws)) == "" {
				t.Fatal("mutation changed nothing")
			}
			post := mustCheckpoint(t, s, Request{Session: "s", CallID: "c", Phase: Post, Roots: []string{ws}})
			chg, err := s.Changes(t.Context(), pre.ID, post.ID)
			must(t, err)
			if len(chg) == 0 {
				t.Fatal("Changes found nothing")
			}
			rollbackTo(t, s, RollbackRequest{Session: "s", To: pre.ID})
			if d := diffState(want, withoutNewGitObjects(want, readState(t, ws))); d != "" {
				t.Fatalf("not restored byte for byte:\n%s", d)
			}
			if got := sh(t, ws, "git rev-parse HEAD; git status --porcelain"); got != head {
				t.Fatalf("git sees a different repo: %q, want %q", got, head)
			}
			sh(t, ws, "git fsck --no-progress --no-dangling")
		})
	}
}

// withoutNewGitObjects is got without what lies in .git/objects and is
// not in want: a rollback keeps the objects git wrote since
// (gitobjects.go), and puts back everything else.
func withoutNewGitObjects(want, got fsState) fsState {
	out := fsState{}
	for k, v := range got {
		if _, ok := want[k]; ok || !strings.HasPrefix(k, ".git/objects/") {
			out[k] = v
		}
	}
	return out
}

// The person's edit between two agent calls survives a rollback of both.
func TestRealExternalEditSurvives(t *testing.T) {
	requireTool(t, "git")
	ws := gitWorkspace(t)
	s := openStore(t, t.TempDir(), Options{})
	pre := mustCheckpoint(t, s, Request{Session: "s", CallID: "c1", Phase: Pre, Roots: []string{ws}})
	sh(t, ws, `find src/m0 -name '*.txt' -exec sed -i 's/foo/agent/' {} +`)
	mustCheckpoint(t, s, Request{Session: "s", CallID: "c1", Phase: Post, Roots: []string{ws}})
	sh(t, ws, `echo "my notes" > NOTES.md && echo "person" >> src/m5/f005.txt`)
	mustCheckpoint(t, s, Request{Session: "s", CallID: "c2", Phase: Pre, Roots: []string{ws}})
	sh(t, ws, `git rm -q -r src/m1`)
	mustCheckpoint(t, s, Request{Session: "s", CallID: "c2", Phase: Post, Roots: []string{ws}})
	p, _ := rollbackTo(t, s, RollbackRequest{Session: "s", To: pre.ID})
	var ext []string
	for _, e := range p.ExternalEdits {
		ext = append(ext, e.Path)
	}
	if strings.Join(ext, ",") != "NOTES.md,src/m5/f005.txt" {
		t.Fatalf("external edits = %v", ext)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "NOTES.md")); string(b) != "my notes\n" {
		t.Fatalf("person's new file lost")
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "src/m5/f005.txt")); !strings.HasSuffix(string(b), "person\n") {
		t.Fatalf("person's edit lost")
	}
	if _, err := os.Stat(filepath.Join(ws, "src/m1/f001.txt")); err != nil {
		t.Fatalf("agent's deletion not rolled back: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "src/m0/f000.txt")); !strings.HasPrefix(string(b), "foo line 0") {
		t.Fatalf("agent's sed not rolled back: %q", b)
	}
}
