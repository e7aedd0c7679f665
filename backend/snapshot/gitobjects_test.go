package snapshot

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRollbackKeepsNewGitObjects: undoing a call, or rolling back to a
// checkpoint, puts git's refs and HEAD back and deletes what else the
// call made, but keeps the objects it (or another agent's git sharing the
// store) wrote, in a workspace's .git and in a root that is a git dir;
// a repository made since goes whole.
func TestRollbackKeepsNewGitObjects(t *testing.T) {
	const object = "ab/cdef0123456789abcdef0123456789abcdef01"
	for _, tc := range []struct {
		name string
		// git is where the repository lies in the root ("" for the root).
		git  string
		made bool // the repository is made by the call
		undo bool // undo the call rather than roll back to its checkpoint
	}{
		{"workspace, undo", ".git", false, true},
		{"workspace, to a checkpoint", ".git", false, false},
		{"a git dir as the root", "", false, true},
		{"a repository made since", ".git", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			s := openStore(t, t.TempDir(), Options{})
			writeFile(t, root, "a.txt", "a\n", 0o644)
			repo := func(rel string) string { return filepath.Join(tc.git, rel) }
			setUp := func() {
				writeFile(t, root, repo("HEAD"), "ref: refs/heads/main\n", 0o644)
				writeFile(t, root, repo("refs/heads/main"), "1111111111111111111111111111111111111111\n", 0o644)
				writeFile(t, root, repo("objects/info/packs"), "\n", 0o644)
			}
			if !tc.made {
				setUp()
			}
			pre := mustCheckpoint(t, s, Request{Session: "s", CallID: "c", Phase: Pre, Roots: []string{root}})
			if tc.made {
				setUp()
			}
			writeFile(t, root, repo("objects/"+object), "blob\n", 0o444)
			writeFile(t, root, repo("refs/heads/main"), "abcdef0123456789abcdef0123456789abcdef01\n", 0o644)
			writeFile(t, root, "new.txt", "new\n", 0o644)
			mustCheckpoint(t, s, Request{Session: "s", CallID: "c", Phase: Post, Roots: []string{root}})
			req := RollbackRequest{Session: "s", To: pre.ID}
			if tc.undo {
				req = RollbackRequest{Session: "s", UndoCall: "c"}
			}
			rollbackTo(t, s, req)
			if _, err := os.Stat(filepath.Join(root, "new.txt")); err == nil {
				t.Error("new.txt is still there")
			}
			_, err := os.Stat(filepath.Join(root, repo("objects/"+object)))
			switch {
			case tc.made && err == nil:
				t.Error("the repository made since left its object behind")
			case !tc.made && err != nil:
				t.Errorf("the new object is gone: %v", err)
			}
			b, err := os.ReadFile(filepath.Join(root, repo("refs/heads/main")))
			switch {
			case tc.made && err == nil:
				t.Error("the repository made since left its branch behind")
			case !tc.made && string(b) != "1111111111111111111111111111111111111111\n":
				t.Errorf("main is %q after the rollback (%v)", b, err)
			}
		})
	}
}
