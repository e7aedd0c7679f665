package effect

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestReadHistory(t *testing.T) {
	cases := []struct {
		name     string
		setup    string // on the host, before the run
		script   string
		rewrites int
		lost     int
		pushed   bool
		logs     bool
		ref      string // the rewritten ref; refs/heads/main if empty
	}{
		{name: "a new commit", script: "echo y >> f.txt && git commit -qam more"},
		{name: "reset --hard HEAD~3", script: "git reset -q --hard HEAD~3", rewrites: 1, lost: 3},
		{name: "amend a pushed commit", setup: "git update-ref refs/remotes/origin/main HEAD", script: "echo z >> f.txt && git commit -q --amend -am again", rewrites: 1, lost: 0, pushed: true},
		{name: "amend a local commit", script: "echo z >> f.txt && git commit -q --amend -am again", rewrites: 1},
		{name: "rebase a topic branch", setup: "git checkout -qb topic && echo t > t.txt && git add t.txt && git -c user.name=a -c user.email=a@example.test commit -qm t && git checkout -q main && echo m > m.txt && git add m.txt && git -c user.name=a -c user.email=a@example.test commit -qm m && git checkout -q topic",
			script: "git rebase -q main", rewrites: 1, ref: "refs/heads/topic"},
		{name: "delete an unmerged branch", setup: "git checkout -qb topic && echo t > t.txt && git add t.txt && git -c user.name=a -c user.email=a@example.test commit -qm t && git checkout -q main",
			script: "git branch -q -D topic", rewrites: 1, lost: 1, ref: "refs/heads/topic"},
		{name: "delete a merged branch", setup: "git branch topic", script: "git branch -q -d topic"},
		{name: "expire the reflog", script: "git reflog expire --expire=now --all", logs: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws := gitRepo(t, 4)
			if tc.setup != "" {
				if out, err := exec.Command("sh", "-c", "cd "+ws+" && "+tc.setup).CombinedOutput(); err != nil {
					t.Fatalf("%v %s", err, out)
				}
			}
			upper, _ := stagedRun(t, ws, gitIdentity+tc.script)
			s, err := Read(upper, ws)
			if err != nil {
				t.Fatal(err)
			}
			h, err := ReadHistory(t.Context(), s, NewLayers(ws, upper, s, nil))
			if err != nil {
				t.Fatal(err)
			}
			if len(h.Rewrites) != tc.rewrites {
				t.Fatalf("rewrites %+v", h.Rewrites)
			}
			ref := tc.ref
			if ref == "" {
				ref = "refs/heads/main"
			}
			if tc.rewrites > 0 && (h.Rewrites[0].Lost != tc.lost || h.Rewrites[0].Pushed != tc.pushed || h.Rewrites[0].Ref != ref) {
				t.Fatalf("rewrite %+v", h.Rewrites[0])
			}
			if (len(h.DroppedLogs) > 0) != tc.logs {
				t.Fatalf("dropped logs %v", h.DroppedLogs)
			}
		})
	}
}

func TestTrackedDirs(t *testing.T) {
	ws := gitRepo(t, 1)
	os.MkdirAll(filepath.Join(ws, "src/inner"), 0o755)
	os.WriteFile(filepath.Join(ws, "src/inner/a.go"), []byte("package a\n"), 0o644)
	os.MkdirAll(filepath.Join(ws, "build"), 0o755)
	os.WriteFile(filepath.Join(ws, "build/out.o"), []byte("o"), 0o644)
	hostSh(t, ws, "git add src && git commit -qm src")
	upper, _ := stagedRun(t, ws, "rm -rf src build")
	s, _ := Read(upper, ws)
	got, err := TrackedDirs(t.Context(), s, ws)
	if err != nil || len(got) != 1 || got[0] != "src" {
		t.Fatalf("tracked dirs %v %v", got, err)
	}
}
