package effect

import (
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/policy"
	"github.com/gatehouse-dev/gatehouse/backend/snapshot"
)

// checkedRun runs script in the workspace itself between two checkpoints,
// as a backend that cannot stage does, and returns its change sets with
// the checkpoint before as their prior.
func checkedRun(t *testing.T, ws, script string) ChangeSets {
	t.Helper()
	st, err := snapshot.Open(t.TempDir(), snapshot.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	req := snapshot.Request{Session: "s", CallID: "c", Roots: []string{ws}}
	req.Phase = snapshot.Pre
	pre, err := st.Checkpoint(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	hostSh(t, ws, script)
	req.Phase = snapshot.Post
	post, err := st.Checkpoint(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	changes, err := st.ChangeList(t.Context(), pre.ID, post.ID)
	if err != nil {
		t.Fatal(err)
	}
	cs := FromCheckpoints([]string{ws}, nil, changes)
	cs.Priors = []Prior{func(rel string) ([]byte, error) { return st.ReadFile(pre.ID, ws, rel) }}
	return cs
}

// runAs runs script in ws staged (an overlay) or checked (in place,
// between checkpoints), by mode, and returns its change sets.
func runAs(t *testing.T, mode, ws, script string) ChangeSets {
	t.Helper()
	if mode == "checked" {
		return checkedRun(t, ws, script)
	}
	upper, _ := stagedRun(t, ws, gitIdentity+script)
	s, err := Read(upper, ws)
	if err != nil {
		t.Fatal(err)
	}
	return ChangeSets{Workspaces: []string{ws}, Sets: []Set{s}, Uppers: []string{upper}}
}

// TestDestructionJudgedAgainstTheWorkspace runs each script for real,
// staged (an overlay) and checked (in place, between checkpoints), and
// asks the builtin rules: losing most of a small project's tracked files,
// or any of the repository's history and state in .git, holds; git's own
// housekeeping and ordinary work apply.
func TestDestructionJudgedAgainstTheWorkspace(t *testing.T) {
	cases := []struct {
		name   string
		files  int
		setup  string
		script string
		rule   string // "" applies
		says   string // in the reason
	}{
		{name: "find . -delete", files: 5, script: "find . -delete", rule: "repository-delete", says: "5 of the workspace's 5 tracked files and the repository's history"},
		{name: "rm -rf .git", files: 5, script: "rm -rf .git", rule: "repository-delete", says: ".git"},
		{name: "rm .git/index", files: 5, script: "rm .git/index", rule: "repository-delete", says: ".git/index (which listed 5 tracked files)"},
		{name: "rm -rf .git/refs", files: 5, script: "rm -rf .git/refs", rule: "repository-delete", says: ".git/refs"},
		{name: "rm .git/HEAD", files: 5, script: "rm .git/HEAD", rule: "repository-delete", says: "HEAD"},
		{name: "rm -rf .git/objects", files: 5, script: "rm -rf .git/objects", rule: "repository-delete", says: ".git/objects"},
		{name: "a loose object in use", files: 5, script: "rm -f .git/objects/$(git rev-parse HEAD | cut -c1-2)/$(git rev-parse HEAD | cut -c3-)", rule: "repository-delete", says: ".git/objects (1 object"},
		{name: "the pack", files: 5, setup: "git gc -q", script: "rm -f .git/objects/pack/*.pack", rule: "repository-delete", says: ".git/objects"},
		{name: "the current branch", files: 5, script: "rm .git/refs/heads/main", rule: "repository-delete", says: "the checked-out branch main"},
		{name: "a tag", files: 5, setup: "git tag v1", script: "git tag -d v1", rule: "repository-delete", says: "tag v1"},
		{name: "a packed tag", files: 5, setup: "git tag v1 && git pack-refs --all", script: "git tag -d v1", rule: "repository-delete", says: "tag v1"},
		{name: "3 of 4 tracked files", files: 4, script: "rm f1.txt f2.txt f3.txt", rule: "tracked-majority-delete", says: "3 of the workspace's 4 tracked files"},
		{name: "2 of 3 emptied", files: 3, script: ": > f1.txt && : > f2.txt", rule: "tracked-majority-delete", says: "2 of the workspace's 3 tracked files"},
		{name: "a packed branch that loses commits", files: 3, setup: "git checkout -qb topic && echo t > t.txt && git add t.txt && git commit -qm t && git checkout -q main && git pack-refs --all", script: "git branch -q -D topic", rule: "history-rewrite", says: "refs/heads/topic"},

		{name: "git commit", files: 5, script: "echo more >> f1.txt && git commit -qam more"},
		{name: "git gc", files: 5, script: "git gc -q"},
		{name: "git gc twice", files: 5, setup: "git gc -q && echo x >> f1.txt && git commit -qam x", script: "git gc -q"},
		{name: "git repack -a -d", files: 5, setup: "git gc -q && echo x >> f1.txt && git commit -qam x", script: "git repack -q -a -d"},
		{name: "git prune of an unused object", files: 5, setup: "echo loose | git hash-object -w --stdin", script: "git prune --expire=now"},
		{name: "git branch -d merged", files: 5, setup: "git branch topic", script: "git branch -q -d topic"},
		{name: "git branch -d merged and packed", files: 5, setup: "git branch topic && git pack-refs --all", script: "git branch -q -d topic"},
		{name: "git checkout of a lean branch", files: 5, setup: "git checkout -qb lean && git rm -q f1.txt f2.txt f3.txt && git commit -qm lean && git checkout -q main", script: "git checkout -q lean"},
		{name: "one file of five", files: 5, script: "rm f1.txt"},
		{name: "1 of 2", files: 2, script: "rm f1.txt"},
		{name: "renames", files: 4, script: "mv f1.txt g1.txt && mv f2.txt g2.txt && mv f3.txt g3.txt"},
		{name: "the index rewritten", files: 5, script: "git add -A && git reset -q"},
	}
	p := policy.Builtin()
	for _, tc := range cases {
		for _, mode := range []string{"staged", "checked"} {
			t.Run(tc.name+"/"+mode, func(t *testing.T) {
				ws := smallRepo(t, tc.files)
				if tc.setup != "" {
					hostSh(t, ws, tc.setup)
				}
				cs := runAs(t, mode, ws, tc.script)
				d := p.DecideEffect(PolicyEffect(t.Context(), cs))
				want := tc.rule
				if want == "" {
					want = "effect-apply"
				}
				if d.Rule.ID != want || !strings.Contains(d.Reason, tc.says) {
					t.Fatalf("%s: %s (%s), want %s saying %q; findings %q", tc.script, d.Rule.ID, d.Reason, want, tc.says, d.Findings)
				}
			})
		}
	}
}
