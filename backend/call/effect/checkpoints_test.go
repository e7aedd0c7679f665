package effect

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/snapshot"
)

// TestFromCheckpoints: each kind of checkpoint difference becomes the
// change the effect rules judge, in its workspace's set; a change outside
// every workspace is left out.
func TestFromCheckpoints(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	if err := os.Symlink("target.txt", filepath.Join(b, "link")); err != nil {
		t.Fatal(err)
	}
	changes := []snapshot.Change{
		{Root: a, Path: "new.txt", Kind: snapshot.Added, NewKind: snapshot.KindFile, NewPerm: 0o644, NewSize: 3},
		{Root: a, Path: "gone.txt", Kind: snapshot.Deleted, OldKind: snapshot.KindFile, OldPerm: 0o600, OldSize: 9},
		{Root: a, Path: "emptied.txt", Kind: snapshot.Modified, NewKind: snapshot.KindFile, OldSize: 5, NewSize: 0, OldPerm: 0o644, NewPerm: 0o644},
		{Root: a, Path: "run.sh", Kind: snapshot.ModeChanged, NewKind: snapshot.KindFile, OldPerm: 0o644, NewPerm: 0o755, OldSize: 1, NewSize: 1},
		{Root: b, Path: "link", Kind: snapshot.TypeChanged, OldKind: snapshot.KindDir, NewKind: snapshot.KindSymlink},
		{Root: "/elsewhere", Path: "x", Kind: snapshot.Added, NewKind: snapshot.KindFile},
	}
	cs := FromCheckpoints([]string{a, b}, nil, changes)
	if len(cs.Sets) != 2 || len(cs.Uppers) != 2 || cs.Uppers[0] != "" {
		t.Fatalf("sets %+v", cs)
	}
	got := cs.Sets[0].Changes
	if len(got) != 4 {
		t.Fatalf("workspace a: %+v", got)
	}
	if c := got[0]; c.Op != Create || c.Kind != File || c.Size != 3 || c.Mode != 0o644 {
		t.Errorf("added: %+v", c)
	}
	if c := got[1]; c.Op != Delete || c.Size != 9 {
		t.Errorf("deleted: %+v", c)
	}
	if c := got[2]; c.Op != Modify || !c.Emptied || c.ModeOnly {
		t.Errorf("emptied: %+v", c)
	}
	if c := got[3]; c.Op != Modify || !c.ModeOnly || c.OldMode != 0o644 || c.Mode != 0o755 {
		t.Errorf("mode change: %+v", c)
	}
	gb := cs.Sets[1].Changes
	if len(gb) != 2 || gb[0].Op != Delete || gb[0].Kind != Dir || gb[1].Op != Create || gb[1].Kind != Symlink || gb[1].Target != "target.txt" {
		t.Errorf("type change in b: %+v", gb)
	}
	if paths := cs.Paths(); len(paths) != 6 || paths[0] != filepath.Join(a, "new.txt") || paths[5] != filepath.Join(b, "link") {
		t.Errorf("paths %v", paths)
	}
}

// TestFromCheckpointsGitDirs: a linked worktree's common git dir stands as
// a .git (paths under .git/, read back from the checkpoint and from disk
// without it): one named .git as its main worktree's, one named otherwise
// (a bare repository's) as the .git of a repository at its own place,
// named on a card by where it lies.
func TestFromCheckpointsGitDirs(t *testing.T) {
	ws, base := t.TempDir(), t.TempDir()
	common, bare := filepath.Join(base, "main", ".git"), filepath.Join(base, "repo.git")
	changes := []snapshot.Change{
		{Root: common, Path: "refs/heads/main", Kind: snapshot.Deleted, OldKind: snapshot.KindFile},
		{Root: bare, Path: "refs/heads/x", Kind: snapshot.Added, NewKind: snapshot.KindFile},
		{Root: ws, Path: "a.txt", Kind: snapshot.Added, NewKind: snapshot.KindFile},
	}
	cs := FromCheckpoints([]string{ws}, []string{common, bare}, changes)
	want := []string{ws, filepath.Join(base, "main"), bare}
	if len(cs.Workspaces) != 3 || cs.Workspaces[0] != want[0] || cs.Workspaces[1] != want[1] || cs.Workspaces[2] != want[2] {
		t.Fatalf("workspaces %v, want %v", cs.Workspaces, want)
	}
	for i, p := range []string{"a.txt", ".git/refs/heads/main", ".git/refs/heads/x"} {
		if len(cs.Sets[i].Changes) != 1 || cs.Sets[i].Changes[0].Path != p {
			t.Errorf("set %d: %+v, want %s", i, cs.Sets[i].Changes, p)
		}
	}
	var read []string
	cs.ReadPriors(func(root, rel string) ([]byte, error) {
		read = append(read, root+" "+rel)
		return nil, nil
	})
	cs.Priors[0]("a.txt")
	cs.Priors[1](".git/refs/heads/main")
	if _, err := cs.Priors[1]("a.txt"); err == nil {
		t.Error("a path outside the git dir was read")
	}
	cs.Priors[2](".git/refs/heads/x")
	wantRead := []string{ws + " a.txt", common + " refs/heads/main", bare + " refs/heads/x"}
	if strings.Join(read, "\n") != strings.Join(wantRead, "\n") {
		t.Errorf("read %q, want %q", read, wantRead)
	}
	if l := cs.Layers(2); l.onDisk(".git/refs/heads/x") != filepath.Join(bare, "refs", "heads", "x") || l.onDisk(".git") != bare {
		t.Errorf("the bare set reads its after from %s and %s", l.onDisk(".git/refs/heads/x"), l.onDisk(".git"))
	}
	if got := cs.cardPath(2, ".git/refs/heads/x", true); got != filepath.Join(bare, "refs", "heads", "x") {
		t.Errorf("the bare set's card names %s", got)
	}
	if got := cs.cardPath(1, ".git/refs/heads/main", true); got != "main/.git/refs/heads/main" {
		t.Errorf("the main worktree's set's card names %s", got)
	}
}
