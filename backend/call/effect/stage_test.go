package effect

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

// stagedRun runs script (sh) in an unprivileged user and mount namespace
// with the workspace lower under a real overlay whose upper layer is
// returned, and the tree the overlay showed at the end.
func stagedRun(t *testing.T, ws, script string) (upper string, seen map[string]string) {
	t.Helper()
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skipf("unshare is needed to mount an overlay: %v", err)
	}
	base := t.TempDir()
	upper, work := filepath.Join(base, "upper"), filepath.Join(base, "work")
	os.Mkdir(upper, 0o755)
	os.Mkdir(work, 0o755)
	list := filepath.Join(base, "seen")
	full := "mount -t overlay overlay -o lowerdir=" + ws + ",upperdir=" + upper + ",workdir=" + work + ",userxattr " + ws +
		" && cd " + ws + " && (" + script + ") && find . -mindepth 1 \\( -type f -printf 'f %P %m ' -exec sha256sum {} \\; \\) -o \\( -type d -printf 'd %P %m\\n' \\) -o \\( -type l -printf 'l %P %l\\n' \\) > " + list
	out, err := exec.Command("unshare", "-Urm", "sh", "-c", full).CombinedOutput()
	if err != nil {
		t.Fatalf("staged run: %v\n%s", err, out)
	}
	b, _ := os.ReadFile(list)
	return upper, parseListing(string(b))
}

func parseListing(s string) map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		f := strings.Fields(l)
		if len(f) < 3 {
			continue
		}
		switch f[0] {
		case "f": // f path mode hash ./path
			m[f[1]] = "f " + f[2] + " " + f[3]
		case "d":
			m[f[1]] = "d " + f[2]
		case "l":
			m[f[1]] = "l " + f[2]
		}
	}
	return m
}

// tree is the same listing of a directory on the host.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fi, _ := os.Lstat(p)
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			m[rel] = "l " + target
		case fi.IsDir():
			m[rel] = fmt.Sprintf("d %o", fi.Mode().Perm())
		case fi.Mode().IsRegular():
			b, _ := os.ReadFile(p)
			h := sha256.Sum256(b)
			m[rel] = fmt.Sprintf("f %o %s", fi.Mode().Perm(), hex.EncodeToString(h[:]))
		}
		return nil
	})
	return m
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(root, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func workspace(t *testing.T) string {
	ws := filepath.Join(t.TempDir(), "ws")
	writeFiles(t, ws, map[string]string{
		"src/a.go": "package a\n", "src/sub/b.go": "package sub\n", "keep/k.txt": "k\n", "mod.txt": "m\n",
		"chmod.sh": "#!/bin/sh\n", "becomes-dir": "x\n", "dir-becomes-file/f": "y\n", "empty-me.txt": "full\n",
	})
	return ws
}

const changes = `rm -rf src && mkdir -p src && echo again > src/x.go &&
echo new > new.txt && echo changed >> mod.txt && chmod 755 chmod.sh && rm keep/k.txt &&
ln -s mod.txt link && rm becomes-dir && mkdir becomes-dir && echo in > becomes-dir/f &&
rm -r dir-becomes-file && echo now-a-file > dir-becomes-file && : > empty-me.txt &&
mkdir -p deep/er && echo d > deep/er/e.txt && mkfifo pipe`

func TestReadChanges(t *testing.T) {
	ws := workspace(t)
	upper, _ := stagedRun(t, ws, changes)
	s, err := Read(upper, ws)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range s.Changes {
		k := string(c.Op) + " " + string(c.Kind)
		if c.ModeOnly {
			k += " mode-only"
		}
		if c.Emptied {
			k += " emptied"
		}
		got[c.Path] += k + ";"
	}
	want := map[string]string{
		"src/a.go": "delete file;", "src/sub/b.go": "delete file;", "src/sub": "delete dir;", "src/x.go": "create file;",
		"new.txt": "create file;", "mod.txt": "modify file;", "chmod.sh": "modify file mode-only;", "keep/k.txt": "delete file;",
		"link": "create symlink;", "becomes-dir": "delete file;create dir;", "becomes-dir/f": "create file;",
		"dir-becomes-file/f": "delete file;", "dir-becomes-file": "delete dir;create file;", "empty-me.txt": "modify file emptied;",
		"deep": "create dir;", "deep/er": "create dir;", "deep/er/e.txt": "create file;", "pipe": "create special;",
	}
	for p, w := range want {
		if got[p] != w {
			t.Errorf("%s: %q, want %q", p, got[p], w)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("unexpected change %s: %s", p, got[p])
		}
	}
}

// TestApplyGivesTheStagedTree: after Apply the workspace is what the
// command saw (special files aside), and the journal is gone.
func TestApplyGivesTheStagedTree(t *testing.T) {
	ws := workspace(t)
	since := time.Now()
	upper, seen := stagedRun(t, ws, changes)
	s, err := Read(upper, ws)
	if err != nil {
		t.Fatal(err)
	}
	journal := filepath.Join(t.TempDir(), "journal")
	res, err := Apply(t.Context(), ApplyRequest{Set: s, Upper: upper, Workspace: ws, Since: since, Journal: journal})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Conflicts) != 0 || len(res.Skipped) != 1 || res.Skipped[0].Path != "pipe" {
		t.Fatalf("conflicts %v skipped %v", res.Conflicts, res.Skipped)
	}
	delete(seen, "pipe")
	compareTrees(t, tree(t, ws), seen)
	if _, err := os.Stat(journal); err == nil {
		t.Fatal("the journal outlived a finished apply")
	}
}

func compareTrees(t *testing.T, got, want map[string]string) {
	t.Helper()
	var diffs []string
	for p, w := range want {
		if got[p] != w {
			diffs = append(diffs, p+": got "+got[p]+", want "+w)
		}
	}
	for p, g := range got {
		if _, ok := want[p]; !ok {
			diffs = append(diffs, p+": left over ("+g+")")
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Fatalf("trees differ:\n%s", strings.Join(diffs, "\n"))
	}
}

// TestApplyKeepsThePersonsEdit: a file the person changed while the run
// was staged is a conflict, and their version stays unless they choose
// the staged one.
func TestApplyKeepsThePersonsEdit(t *testing.T) {
	ws := workspace(t)
	since := time.Now()
	upper, _ := stagedRun(t, ws, "echo agent >> mod.txt && echo agent > new.txt")
	// The edit must carry a ctime from after the run began, which a coarse
	// file clock gives only once it has ticked past that.
	edit := filepath.Join(ws, "mod.txt")
	waitfor.For(t, 5*time.Second, "the person's edit to carry a ctime after the run began", func() bool {
		os.WriteFile(edit, []byte("the person's edit\n"), 0o644)
		fi, err := os.Stat(edit)
		return err == nil && changedSince(fi, since)
	})
	s, _ := Read(upper, ws)
	res, err := Apply(t.Context(), ApplyRequest{Set: s, Upper: upper, Workspace: ws, Since: since})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Conflicts) != 1 || res.Conflicts[0].Path != "mod.txt" {
		t.Fatalf("conflicts %+v", res.Conflicts)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "mod.txt")); string(b) != "the person's edit\n" {
		t.Fatalf("mod.txt = %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "new.txt")); string(b) != "agent\n" {
		t.Fatalf("new.txt = %q", b)
	}
	// Chosen, the staged version wins.
	res, _ = Apply(t.Context(), ApplyRequest{Set: s, Upper: upper, Workspace: ws, Since: since, Staged: map[string]bool{"mod.txt": true}})
	if b, _ := os.ReadFile(filepath.Join(ws, "mod.txt")); string(b) != "m\nagent\n" {
		t.Fatalf("staged choice: mod.txt = %q (%+v)", b, res)
	}
}

// TestRecoverFinishesAnInterruptedApply: with the journal written and only
// part of the steps done, Recover leaves the whole staged tree.
func TestRecoverFinishesAnInterruptedApply(t *testing.T) {
	ws := workspace(t)
	upper, seen := stagedRun(t, ws, changes)
	s, _ := Read(upper, ws)
	var todo []Change
	for _, c := range s.Changes {
		if c.Kind != Special {
			todo = append(todo, c)
		}
	}
	order(todo)
	journal := filepath.Join(t.TempDir(), "journal")
	if _, err := startJournal(ApplyRequest{Upper: upper, Workspace: ws, Journal: journal}, todo); err != nil {
		t.Fatal(err)
	}
	for _, c := range todo[:len(todo)/2] { // the daemon dies halfway
		if err := applyOne(upper, ws, c); err != nil {
			t.Fatal(err)
		}
	}
	found, err := Recover(t.Context(), journal)
	if !found || err != nil {
		t.Fatalf("recover: %v %v", found, err)
	}
	delete(seen, "pipe")
	compareTrees(t, tree(t, ws), seen)
	if found, _ := Recover(t.Context(), journal); found {
		t.Fatal("the journal is still there")
	}
}

// TestApplyMovesFreshDirsWhole: a directory the run created whole is
// renamed out of the upper layer in one step, and an apply cut short
// after that step still finishes.
func TestApplyMovesFreshDirsWhole(t *testing.T) {
	ws := workspace(t)
	upper, seen := stagedRun(t, ws, `mkdir -p install/pkg/lib && for i in $(seq 200); do echo $i > install/pkg/lib/f$i.js; done && echo changed >> mod.txt`)
	s, err := Read(upper, ws)
	if err != nil {
		t.Fatal(err)
	}
	todo := moveFreshDirs(append([]Change(nil), s.Changes...), upper, ws)
	if len(todo) != 2 {
		t.Fatalf("steps %+v, want the install moved whole and mod.txt", todo)
	}
	order(todo)
	journal := filepath.Join(t.TempDir(), "journal")
	if _, err := startJournal(ApplyRequest{Upper: upper, Workspace: ws, Journal: journal}, todo); err != nil {
		t.Fatal(err)
	}
	if err := applyOne(upper, ws, todo[0]); err != nil { // the daemon dies after the first step
		t.Fatal(err)
	}
	if found, err := Recover(t.Context(), journal); !found || err != nil {
		t.Fatalf("recover: %v %v", found, err)
	}
	compareTrees(t, tree(t, ws), seen)
	if _, err := os.Lstat(filepath.Join(upper, "install")); err == nil {
		t.Error("the fresh directory was copied, not moved")
	}
}

// TestApplyRefusesLinkedParents: a directory the person (or anything
// else) replaced by a link while the run was held is not written through.
func TestApplyRefusesLinkedParents(t *testing.T) {
	ws := workspace(t)
	outside := t.TempDir()
	since := time.Now()
	upper, _ := stagedRun(t, ws, "echo agent > keep/new.txt")
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.RemoveAll(filepath.Join(ws, "keep")))
	must(os.Symlink(outside, filepath.Join(ws, "keep")))
	s, _ := Read(upper, ws)
	res, err := Apply(t.Context(), ApplyRequest{Set: s, Upper: upper, Workspace: ws, Since: since})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(outside, "new.txt")); err == nil {
		t.Fatal("the apply wrote through a link out of the workspace")
	}
	if len(res.Conflicts) == 0 {
		t.Fatalf("no conflict listed: %+v", res)
	}
}
