package snapshot

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

// TestRollbackRestoresExactly runs each mutation between a pre and post
// checkpoint, rolls back to pre and compares the tree byte for byte.
func TestRollbackRestoresExactly(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(t *testing.T, ws string)
	}{
		{"delete tree", func(t *testing.T, ws string) { must(t, os.RemoveAll(filepath.Join(ws, "src"))) }},
		{"modify text", func(t *testing.T, ws string) { writeFile(t, ws, "README.md", "# changed\n", 0o644) }},
		{"chmod -x", func(t *testing.T, ws string) { must(t, os.Chmod(filepath.Join(ws, "run.sh"), 0o644)) }},
		{"file becomes symlink to /etc/passwd", func(t *testing.T, ws string) {
			p := filepath.Join(ws, "README.md")
			must(t, os.Remove(p))
			must(t, os.Symlink("/etc/passwd", p))
		}},
		{"dir becomes symlink to /etc", func(t *testing.T, ws string) {
			p := filepath.Join(ws, "src")
			must(t, os.RemoveAll(p))
			must(t, os.Symlink("/etc", p))
		}},
		{"symlink retargeted", func(t *testing.T, ws string) {
			p := filepath.Join(ws, "link-to-readme")
			must(t, os.Remove(p))
			must(t, os.Symlink("run.sh", p))
		}},
		{"binary rewrite", func(t *testing.T, ws string) {
			writeFile(t, ws, "assets/blob.bin", strings.Repeat("\x00\xff", 4000), 0o600)
		}},
		{"new empty dir and files", func(t *testing.T, ws string) {
			must(t, os.MkdirAll(filepath.Join(ws, "newdir/inner"), 0o700))
			writeFile(t, ws, "src/pkg0/extra.go", "package p\n", 0o644)
		}},
		{"empty dir removed", func(t *testing.T, ws string) { must(t, os.RemoveAll(filepath.Join(ws, "empty"))) }},
		{"dir mode change", func(t *testing.T, ws string) { must(t, os.Chmod(filepath.Join(ws, "src"), 0o700)) }},
		{"rename", func(t *testing.T, ws string) {
			must(t, os.Rename(filepath.Join(ws, "src/pkg1"), filepath.Join(ws, "lib")))
		}},
		{"file becomes dir", func(t *testing.T, ws string) {
			p := filepath.Join(ws, "README.md")
			must(t, os.Remove(p))
			writeFile(t, ws, "README.md/inside.txt", "x", 0o644)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws, s := seededStore(t)
			want := readState(t, ws)
			pre := mustCheckpoint(t, s, Request{Session: "s1", CallID: "c1", Phase: Pre, Roots: []string{ws}})
			tc.mutate(t, ws)
			mustCheckpoint(t, s, Request{Session: "s1", CallID: "c1", Phase: Post, Roots: []string{ws}})
			p, res := rollbackTo(t, s, RollbackRequest{Session: "s1", To: pre.ID})
			if len(p.ExternalEdits) != 0 {
				t.Errorf("unexpected external edits: %+v", p.ExternalEdits)
			}
			if d := diffState(want, readState(t, ws)); d != "" {
				t.Fatalf("workspace differs after rollback:\n%s", d)
			}
			// The rollback itself is undoable.
			mutated := res.Before
			if mutated == "" {
				t.Fatal("no checkpoint before rollback")
			}
			rollbackTo(t, s, RollbackRequest{Session: "s1", UndoCall: res.CallID})
			again := readState(t, ws)
			if diffState(want, again) == "" {
				t.Fatal("undoing the rollback did not bring the mutation back")
			}
		})
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestPathScopedCheckpointAndChanges(t *testing.T) {
	ws, s := seededStore(t)
	ctx := t.Context()
	mustCheckpoint(t, s, Request{Session: "s", CallID: "c0", Phase: Pre, Roots: []string{ws}})
	target := filepath.Join(ws, "src/pkg2/file2.go")
	newFile := filepath.Join(ws, "src/newpkg/new.go")
	pre := mustCheckpoint(t, s, Request{Session: "s", CallID: "w1", Phase: Pre, Roots: []string{ws}, Paths: []string{target, newFile}})
	if pre.Stats.Hashed != 0 {
		t.Errorf("scoped pre checkpoint re-read %d files, want 0", pre.Stats.Hashed)
	}
	writeFile(t, ws, "src/pkg2/file2.go", "package p\n\nconst N2 = 42\n", 0o644)
	writeFile(t, ws, "src/newpkg/new.go", "package newpkg\n", 0o644)
	// An unrelated edit is not part of a scoped checkpoint.
	writeFile(t, ws, "README.md", "edited by a person\n", 0o644)
	post := mustCheckpoint(t, s, Request{Session: "s", CallID: "w1", Phase: Post, Roots: []string{ws}, Paths: []string{target, newFile}})
	if post.Stats.Hashed != 2 {
		t.Errorf("scoped post re-read %d files, want 2", post.Stats.Hashed)
	}
	chg, err := s.Changes(ctx, pre.ID, post.ID)
	must(t, err)
	got := map[string]Change{}
	for _, c := range chg {
		got[c.Path] = c
	}
	if len(got) != 3 { // modified file, new dir, new file
		t.Fatalf("changes = %+v", chg)
	}
	if c := got["src/pkg2/file2.go"]; c.Kind != Modified || !strings.Contains(c.Diff, "-const N2 = 2\n+const N2 = 42\n") {
		t.Errorf("modified change = %+v", c)
	}
	if c := got["src/newpkg/new.go"]; c.Kind != Added || !strings.Contains(c.Diff, "+package newpkg") {
		t.Errorf("added change = %+v", c)
	}
	// The composed tree equals a full scan except for the unrelated edit.
	full := mustCheckpoint(t, s, Request{Session: "s", CallID: "c2", Phase: Pre, Roots: []string{ws}})
	chg, err = s.Changes(ctx, post.ID, full.ID)
	must(t, err)
	if len(chg) != 1 || chg[0].Path != "README.md" {
		t.Errorf("scoped tree vs full scan differ in %+v, want only README.md", chg)
	}
	// Undo just the write: README (a person's edit) stays.
	p, _ := rollbackTo(t, s, RollbackRequest{Session: "s", UndoCall: "w1"})
	if len(p.Items) != 3 {
		t.Errorf("undo items = %+v", p.Items)
	}
	if b, _ := os.ReadFile(target); string(b) != "package p\n\nconst N2 = 2\n" {
		t.Errorf("file2.go = %q", b)
	}
	if _, err := os.Stat(filepath.Join(ws, "src/newpkg")); !os.IsNotExist(err) {
		t.Errorf("new dir still there: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "README.md")); string(b) != "edited by a person\n" {
		t.Errorf("person's edit lost: %q", b)
	}
}

// A file the person edited between calls survives a rollback unless forced.
func TestExternalEditsKeptUnlessForced(t *testing.T) {
	for _, force := range []bool{false, true} {
		t.Run(fmt.Sprintf("force=%v", force), func(t *testing.T) {
			ws, s := seededStore(t)
			want := readState(t, ws)
			pre := mustCheckpoint(t, s, Request{Session: "s", CallID: "c1", Phase: Pre, Roots: []string{ws}})
			writeFile(t, ws, "src/pkg0/file0.go", "agent 1\n", 0o644)
			mustCheckpoint(t, s, Request{Session: "s", CallID: "c1", Phase: Post, Roots: []string{ws}})
			// Between calls the person edits two files; one is then also
			// changed by the agent's next call.
			writeFile(t, ws, "README.md", "person\n", 0o644)
			writeFile(t, ws, "src/pkg1/file1.go", "person\n", 0o644)
			mustCheckpoint(t, s, Request{Session: "s", CallID: "c2", Phase: Pre, Roots: []string{ws}})
			writeFile(t, ws, "src/pkg1/file1.go", "agent 2\n", 0o644)
			mustCheckpoint(t, s, Request{Session: "s", CallID: "c2", Phase: Post, Roots: []string{ws}})
			// After the last call the person edits another file.
			writeFile(t, ws, "run.sh", "#!/bin/sh\necho person\n", 0o755)

			p, _ := rollbackTo(t, s, RollbackRequest{Session: "s", To: pre.ID, Force: force})
			var ext []string
			for _, e := range p.ExternalEdits {
				ext = append(ext, e.Path)
			}
			// Unforced plans read only what calls and gaps touched: run.sh
			// (edited after the last call, never by the agent) is kept
			// without being read. Forced plans read and list everything.
			wantExt := "README.md,src/pkg1/file1.go"
			if force {
				wantExt = "README.md,run.sh,src/pkg1/file1.go"
			}
			if strings.Join(ext, ",") != wantExt {
				t.Errorf("external edits = %v, want %s", ext, wantExt)
			}
			got := readState(t, ws)
			if force {
				if d := diffState(want, got); d != "" {
					t.Fatalf("forced rollback not exact:\n%s", d)
				}
				return
			}
			read := func(rel string) string {
				b, _ := os.ReadFile(filepath.Join(ws, rel))
				return string(b)
			}
			if read("README.md") != "person\n" || read("run.sh") != "#!/bin/sh\necho person\n" {
				t.Errorf("person's edits not kept")
			}
			if read("src/pkg1/file1.go") != "person\n" {
				t.Errorf("file1.go = %q, want the person's version", read("src/pkg1/file1.go"))
			}
			if read("src/pkg0/file0.go") != "package p\n\nconst N0 = 0\n" {
				t.Errorf("agent change not rolled back: %q", read("src/pkg0/file0.go"))
			}
		})
	}
}

func TestUndoCallConflicts(t *testing.T) {
	ws, s := seededStore(t)
	step := func(call string, f func()) {
		mustCheckpoint(t, s, Request{Session: "s", CallID: call, Phase: Pre, Roots: []string{ws}})
		f()
		mustCheckpoint(t, s, Request{Session: "s", CallID: call, Phase: Post, Roots: []string{ws}})
	}
	step("c1", func() {
		writeFile(t, ws, "README.md", "c1\n", 0o644)
		writeFile(t, ws, "run.sh", "c1\n", 0o755)
	})
	step("c2", func() { writeFile(t, ws, "README.md", "c2\n", 0o644) })
	p, err := s.Plan(t.Context(), RollbackRequest{Session: "s", UndoCall: "c1"})
	must(t, err)
	if len(p.Conflicts) != 1 || p.Conflicts[0].Path != "README.md" || p.Conflicts[0].Calls[0] != "c2" {
		t.Fatalf("conflicts = %+v", p.Conflicts)
	}
	_, err = s.Apply(t.Context(), p)
	must(t, err)
	if b, _ := os.ReadFile(filepath.Join(ws, "README.md")); string(b) != "c2\n" {
		t.Errorf("conflicting file overwritten without force: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "run.sh")); string(b) != "#!/bin/sh\necho hi\n" {
		t.Errorf("run.sh not restored: %q", b)
	}
	rollbackTo(t, s, RollbackRequest{Session: "s", UndoCall: "c1", Force: true})
	if b, _ := os.ReadFile(filepath.Join(ws, "README.md")); string(b) != "# demo\n\nline two\n" {
		t.Errorf("forced undo did not restore README: %q", b)
	}
}

func TestTypedErrors(t *testing.T) {
	ctx := t.Context()
	t.Run("other session", func(t *testing.T) {
		ws, data := t.TempDir(), t.TempDir()
		seedWorkspace(t, ws)
		s := openStore(t, data, Options{})
		cp := mustCheckpoint(t, s, Request{Session: "a", CallID: "c", Phase: Pre, Roots: []string{ws}})
		_, err := s.Plan(ctx, RollbackRequest{Session: "b", To: cp.ID})
		if !errors.Is(err, ErrWrongSession) {
			t.Fatalf("err = %v, want ErrWrongSession", err)
		}
		_, err = s.Plan(ctx, RollbackRequest{Session: "b", UndoCall: "c"})
		if !errors.Is(err, ErrWrongSession) {
			t.Fatalf("undo err = %v, want ErrWrongSession", err)
		}
	})
	t.Run("workspace moved", func(t *testing.T) {
		base, data := t.TempDir(), t.TempDir()
		ws := filepath.Join(base, "ws")
		seedWorkspace(t, ws)
		s := openStore(t, data, Options{})
		cp := mustCheckpoint(t, s, Request{Session: "a", CallID: "c", Phase: Pre, Roots: []string{ws}})
		must(t, os.Rename(ws, filepath.Join(base, "moved")))
		_, err := s.Plan(ctx, RollbackRequest{Session: "a", To: cp.ID})
		var wm *WorkspaceMissingError
		if !errors.As(err, &wm) || !errors.Is(err, ErrWorkspaceMissing) || wm.Root != ws {
			t.Fatalf("err = %v, want WorkspaceMissingError", err)
		}
	})
	t.Run("missing blobs", func(t *testing.T) {
		ws, data := t.TempDir(), t.TempDir()
		seedWorkspace(t, ws)
		s, err := Open(data, Options{}, nil)
		must(t, err)
		cp := mustCheckpoint(t, s, Request{Session: "a", CallID: "c", Phase: Pre, Roots: []string{ws}})
		s.Close()
		packs, _ := filepath.Glob(filepath.Join(data, "packs", "*"))
		for _, p := range packs {
			must(t, os.Remove(p))
		}
		s = openStore(t, data, Options{})
		must(t, os.RemoveAll(filepath.Join(ws, "src")))
		before := readState(t, ws)
		_, err = s.Plan(ctx, RollbackRequest{Session: "a", To: cp.ID})
		if !errors.Is(err, ErrMissingObject) {
			t.Fatalf("err = %v, want ErrMissingObject", err)
		}
		if d := diffState(before, readState(t, ws)); d != "" {
			t.Fatalf("workspace touched:\n%s", d)
		}
	})
	t.Run("unknown checkpoint", func(t *testing.T) {
		s := openStore(t, t.TempDir(), Options{})
		_, err := s.Plan(ctx, RollbackRequest{Session: "a", To: "cp_nope"})
		if !errors.Is(err, ErrNotFound) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("stale plan", func(t *testing.T) {
		ws, s := seededStore(t)
		cp := mustCheckpoint(t, s, Request{Session: "a", CallID: "c", Phase: Pre, Roots: []string{ws}})
		writeFile(t, ws, "README.md", "agent\n", 0o644)
		mustCheckpoint(t, s, Request{Session: "a", CallID: "c", Phase: Post, Roots: []string{ws}})
		p, err := s.Plan(ctx, RollbackRequest{Session: "a", To: cp.ID})
		must(t, err)
		writeFile(t, ws, "README.md", "person, after the preview\n", 0o644)
		if _, err := s.Apply(ctx, p); !errors.Is(err, ErrPlanStale) {
			t.Fatalf("err = %v, want ErrPlanStale", err)
		}
		if b, _ := os.ReadFile(filepath.Join(ws, "README.md")); string(b) != "person, after the preview\n" {
			t.Fatalf("stale apply wrote anyway: %q", b)
		}
	})
}

func TestStatCacheSkipsUnchangedAndCatchesRewrites(t *testing.T) {
	ws, data := t.TempDir(), t.TempDir()
	seedWorkspace(t, ws)
	// Age every file so none is racy against the first scan.
	old := time.Now().Add(-time.Hour)
	filepath.Walk(ws, func(p string, info os.FileInfo, _ error) error {
		if info.Mode()&os.ModeSymlink == 0 {
			os.Chtimes(p, old, old)
		}
		return nil
	})
	waitCtimeSettled(t, data, ws)
	s := openStore(t, data, Options{})
	req := Request{Session: "s", CallID: "c", Phase: Pre, Roots: []string{ws}}
	first := mustCheckpoint(t, s, req)
	if first.Stats.Hashed == 0 {
		t.Fatal("first checkpoint read nothing")
	}
	second := mustCheckpoint(t, s, req)
	if second.Stats.Hashed != 0 || second.Stats.NewObjects != 0 {
		t.Fatalf("unchanged checkpoint read %d files and wrote %d objects", second.Stats.Hashed, second.Stats.NewObjects)
	}
	if second.Roots[0].Tree != first.Roots[0].Tree {
		t.Fatal("tree changed without changes")
	}
	// Same size, mtime put back: only ctime/inode betray the rewrite.
	p := filepath.Join(ws, "src/pkg0/file0.go")
	st, _ := os.Stat(p)
	must(t, os.WriteFile(p, []byte("package q\n\nconst N0 = 0\n"), 0o644))
	must(t, os.Chtimes(p, st.ModTime(), st.ModTime()))
	third := mustCheckpoint(t, s, req)
	if third.Stats.Hashed != 1 || third.Roots[0].Tree == first.Roots[0].Tree {
		t.Fatalf("in-place rewrite missed: hashed=%d", third.Stats.Hashed)
	}
	// A file stamped in the future is racy: it is re-read every time.
	future := time.Now().Add(time.Hour)
	must(t, os.Chtimes(filepath.Join(ws, "README.md"), future, future))
	mustCheckpoint(t, s, req)
	again := mustCheckpoint(t, s, req)
	if again.Stats.Hashed < 1 {
		t.Fatalf("racy file trusted from cache")
	}
	// The cache survives a reopen.
	s.Close()
	s2 := openStore(t, data, Options{})
	must(t, os.Chtimes(filepath.Join(ws, "README.md"), old, old))
	waitCtimeSettled(t, data, ws)
	mustCheckpoint(t, s2, req)
	last := mustCheckpoint(t, s2, req)
	if last.Stats.Hashed != 0 {
		t.Fatalf("after reopen, unchanged checkpoint read %d files", last.Stats.Hashed)
	}
}

// waitCtimeSettled waits until the filesystem clock has moved past every
// ctime in ws, so no file counts as racy. It waits on the clock, it does
// not assert on timing.
func waitCtimeSettled(t *testing.T, dataDir, ws string) {
	t.Helper()
	var newest int64
	filepath.Walk(ws, func(p string, _ os.FileInfo, _ error) error {
		var st syscall.Stat_t
		if syscall.Lstat(p, &st) == nil && st.Ctim.Nano() > newest {
			newest = st.Ctim.Nano()
		}
		return nil
	})
	probe := filepath.Join(t.TempDir(), "clock")
	waitfor.For(t, 5*time.Second, "the filesystem clock to pass the workspace's newest ctime", func() bool {
		must(t, os.WriteFile(probe, []byte("x"), 0o600))
		var st syscall.Stat_t
		must(t, syscall.Stat(probe, &st))
		return st.Mtim.Nano() > newest
	})
}

func TestPreflightAndNotRestorable(t *testing.T) {
	ws, data := t.TempDir(), t.TempDir()
	seedWorkspace(t, ws)
	writeFile(t, ws, "big.dat", strings.Repeat("x", 9000), 0o644)
	must(t, syscall.Mkfifo(filepath.Join(ws, "pipe"), 0o644))
	s := openStore(t, data, Options{MaxFileSize: 8192})
	ctx := t.Context()
	nr, err := s.Preflight(ctx, []string{ws}, nil)
	must(t, err)
	kinds := map[string]string{}
	for _, n := range nr {
		kinds[n.Path] = n.Kind
	}
	if kinds["big.dat"] != "too_large" || kinds["pipe"] != "special" || len(kinds) != 2 {
		t.Fatalf("preflight = %+v", nr)
	}
	if !errors.Is(nr[0].Err(), ErrTooLarge) {
		t.Errorf("err = %v", nr[0].Err())
	}
	cp := mustCheckpoint(t, s, Request{Session: "s", CallID: "c", Phase: Pre, Roots: []string{ws}})
	if len(cp.NotRestorable) != 2 {
		t.Fatalf("checkpoint not restorable = %+v", cp.NotRestorable)
	}
	// The big file is left alone by a rollback even when it changed.
	writeFile(t, ws, "big.dat", strings.Repeat("y", 10000), 0o644)
	writeFile(t, ws, "README.md", "changed\n", 0o644)
	mustCheckpoint(t, s, Request{Session: "s", CallID: "c", Phase: Post, Roots: []string{ws}})
	p, _ := rollbackTo(t, s, RollbackRequest{Session: "s", To: cp.ID})
	if len(p.NotRestorable) != 1 || p.NotRestorable[0].Path != "big.dat" {
		t.Errorf("plan not restorable = %+v", p.NotRestorable)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "big.dat")); len(b) != 10000 {
		t.Errorf("big file touched")
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "README.md")); string(b) != "# demo\n\nline two\n" {
		t.Errorf("README not restored")
	}
}

func TestExcludedPathsNeverTouched(t *testing.T) {
	ws, s := seededStore(t)
	writeFile(t, ws, "web/node_modules/lib/index.js", "v1", 0o644)
	cp := mustCheckpoint(t, s, Request{Session: "s", CallID: "c", Phase: Pre, Roots: []string{ws}})
	writeFile(t, ws, "web/node_modules/lib/index.js", "v2", 0o644)
	writeFile(t, ws, "web/node_modules/new.js", "new", 0o644)
	writeFile(t, ws, "README.md", "changed\n", 0o644)
	mustCheckpoint(t, s, Request{Session: "s", CallID: "c", Phase: Post, Roots: []string{ws}})
	rollbackTo(t, s, RollbackRequest{Session: "s", To: cp.ID})
	if b, _ := os.ReadFile(filepath.Join(ws, "web/node_modules/new.js")); string(b) != "new" {
		t.Errorf("excluded file removed")
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "web/node_modules/lib/index.js")); string(b) != "v2" {
		t.Errorf("excluded file restored")
	}
}

func TestPruneKeepsNewestAndFreesSpace(t *testing.T) {
	ws, data := t.TempDir(), t.TempDir()
	s := openStore(t, data, Options{BudgetBytes: -1})
	noise := noiseFrom(1)
	var cps []Checkpoint
	for i := range 5 {
		writeFile(t, ws, "data.bin", noise(200_000), 0o644)
		writeFile(t, ws, "keep.txt", "stable\n", 0o644)
		cps = append(cps, mustCheckpoint(t, s, Request{Session: "s", CallID: fmt.Sprint(i), Phase: Pre, Roots: []string{ws}}))
	}
	before := s.objs.TotalBytes()
	s.opts.BudgetBytes = 450_000 // room for about two versions
	res, err := s.Prune(t.Context())
	must(t, err)
	if len(res.Dropped) != 3 || res.FreedBytes < 500_000 {
		t.Fatalf("prune = %+v (store was %d bytes)", res, before)
	}
	list, _ := s.List("s")
	if len(list) != 2 || list[1].ID != cps[4].ID {
		t.Fatalf("remaining = %d", len(list))
	}
	// The stat cache no longer vouches for swept content: an unchanged
	// checkpoint right after the prune stays restorable.
	mustCheckpoint(t, s, Request{Session: "s", CallID: "after-prune", Phase: Pre, Roots: []string{ws}})
	// What remains is still restorable, also after a reopen.
	s.Close()
	s = openStore(t, data, Options{BudgetBytes: -1})
	writeFile(t, ws, "data.bin", "other", 0o644)
	mustCheckpoint(t, s, Request{Session: "s", CallID: "x", Phase: Post, Roots: []string{ws}})
	want := cps[3]
	rollbackTo(t, s, RollbackRequest{Session: "s", To: want.ID})
	if st, _ := os.Stat(filepath.Join(ws, "data.bin")); st.Size() != 200_000 {
		t.Fatalf("restored size %d", st.Size())
	}
}

// Workspaces together over the budget, each under it, are not walked
// after every checkpoint: a background prune waits for the store to grow
// by a tenth of the budget since the last, and then drops what is over.
func TestPruneWaitsForGrowth(t *testing.T) {
	a, b, data := t.TempDir(), t.TempDir(), t.TempDir()
	s := openStore(t, data, Options{BudgetBytes: 300_000})
	noise := noiseFrom(7)
	settled := func() {
		waitfor.For(t, 10*time.Second, "the background prune to end", func() bool { return !s.pruneRun.Load() })
	}
	writeFile(t, a, "data.bin", noise(200_000), 0o644)
	writeFile(t, b, "data.bin", noise(200_000), 0o644)
	mustCheckpoint(t, s, Request{Session: "s", CallID: "a0", Phase: Pre, Roots: []string{a}})
	mustCheckpoint(t, s, Request{Session: "s", CallID: "b0", Phase: Pre, Roots: []string{b}})
	settled()
	if n := s.prunes.Load(); n != 1 {
		t.Fatalf("%d prunes once the store passed its budget, want 1", n)
	}
	for i := range 5 {
		writeFile(t, a, "small.txt", fmt.Sprint("change ", i), 0o644)
		mustCheckpoint(t, s, Request{Session: "s", CallID: fmt.Sprint("a-small-", i), Phase: Pre, Roots: []string{a}})
		settled()
	}
	if n := s.prunes.Load(); n != 1 {
		t.Errorf("%d prunes after five small checkpoints, want still 1", n)
	}
	writeFile(t, a, "data.bin", noise(200_000), 0o644)
	mustCheckpoint(t, s, Request{Session: "s", CallID: "a-big", Phase: Pre, Roots: []string{a}})
	settled()
	if n := s.prunes.Load(); n != 2 {
		t.Errorf("%d prunes after the store grew by most of the budget, want 2", n)
	}
	list, err := s.List("s")
	must(t, err)
	if len(list) != 2 {
		t.Errorf("%d checkpoints left, want the newest of each workspace", len(list))
	}
}

// A rollback that fails part way puts the workspace back as it was.
func TestApplyFailureRevertsWorkspace(t *testing.T) {
	ws, data := t.TempDir(), t.TempDir()
	seedWorkspace(t, ws)
	s := openStore(t, data, Options{})
	ctx := t.Context()
	pre := mustCheckpoint(t, s, Request{Session: "s", CallID: "c", Phase: Pre, Roots: []string{ws}})
	must(t, os.Remove(filepath.Join(ws, "src/pkg0/file0.go")))
	writeFile(t, ws, "agent-made.txt", "agent\n", 0o644)
	mustCheckpoint(t, s, Request{Session: "s", CallID: "c", Phase: Post, Roots: []string{ws}})
	p, err := s.Plan(ctx, RollbackRequest{Session: "s", To: pre.ID})
	must(t, err)
	// Someone swaps the directory the restored file goes into for a
	// symlink: the write must fail rather than follow it.
	must(t, os.Rename(filepath.Join(ws, "src/pkg0"), filepath.Join(ws, "elsewhere")))
	must(t, os.Symlink(filepath.Join(ws, "elsewhere"), filepath.Join(ws, "src/pkg0")))
	before := readState(t, ws)
	_, err = s.Apply(ctx, p)
	if err == nil || !strings.Contains(err.Error(), "put back") {
		t.Fatalf("err = %v, want a reverted failure", err)
	}
	if d := diffState(before, readState(t, ws)); d != "" {
		t.Fatalf("workspace not put back:\n%s", d)
	}
	if _, err := os.Stat(filepath.Join(ws, "elsewhere/file0.go")); !os.IsNotExist(err) {
		t.Fatalf("rollback wrote through the symlink")
	}
	if left, _ := filepath.Glob(filepath.Join(data, "journal", "*.json")); len(left) != 0 {
		t.Fatalf("journal left: %v", left)
	}
}

// A forced rollback never deletes what the target checkpoint excluded,
// even when the store's excludes changed in between.
func TestForcedRollbackKeepsFormerlyExcluded(t *testing.T) {
	ws, data := t.TempDir(), t.TempDir()
	seedWorkspace(t, ws)
	writeFile(t, ws, "node_modules/dep/index.js", "dep", 0o644)
	s := openStore(t, data, Options{})
	pre := mustCheckpoint(t, s, Request{Session: "s", CallID: "c", Phase: Pre, Roots: []string{ws}})
	writeFile(t, ws, "README.md", "agent\n", 0o644)
	mustCheckpoint(t, s, Request{Session: "s", CallID: "c", Phase: Post, Roots: []string{ws}})
	s.Close()
	s = openStore(t, data, Options{Exclude: []string{}}) // now nothing is excluded
	rollbackTo(t, s, RollbackRequest{Session: "s", To: pre.ID, Force: true})
	if b, _ := os.ReadFile(filepath.Join(ws, "node_modules/dep/index.js")); string(b) != "dep" {
		t.Fatal("formerly excluded file deleted by a forced rollback")
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "README.md")); string(b) != "# demo\n\nline two\n" {
		t.Fatal("README not restored")
	}
}
