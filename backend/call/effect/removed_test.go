package effect

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// TestRemovedByGit: a branch switch takes src/ out of the index itself;
// a plain rm -rf leaves it tracked, so it is a loss.
func TestRemovedByGit(t *testing.T) {
	for _, tc := range []struct {
		script string
		byGit  int
	}{
		{"git checkout -q lean", 3},
		{"rm -rf src", 0},
		{"git rm -rq src", 3},
	} {
		t.Run(tc.script, func(t *testing.T) {
			ws := gitRepo(t, 1)
			setup := "mkdir src && for i in 1 2 3; do echo $i > src/f$i; done && git add src && git -c user.name=a -c user.email=a@example.test commit -qm s && " +
				"git checkout -qb lean && git rm -rq src && git -c user.name=a -c user.email=a@example.test commit -qm n && git checkout -q main"
			if out, err := exec.Command("sh", "-c", "cd "+ws+" && "+setup).CombinedOutput(); err != nil {
				t.Fatalf("%v %s", err, out)
			}
			upper, _ := stagedRun(t, ws, tc.script)
			s, err := Read(upper, ws)
			if err != nil {
				t.Fatal(err)
			}
			m, err := RemovedByGit(s, NewLayers(ws, upper, s, nil))
			if err != nil {
				t.Fatal(err)
			}
			if len(m) != tc.byGit || (tc.byGit > 0 && !m[filepath.Join("src", "f1")]) {
				t.Fatalf("removed by git: %v, want %d", m, tc.byGit)
			}
		})
	}
}
