package fsops

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestEditFile(t *testing.T) {
	src := "func a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 1\n}\n"
	cases := []struct {
		name     string
		old, new string
		all      bool
		want     string
		kind     error
		msg      string
	}{
		{"unique", "func a() {\n\treturn 1", "func a() {\n\treturn 2", false,
			"func a() {\n\treturn 2\n}\n\nfunc b() {\n\treturn 1\n}\n", nil, ""},
		{"ambiguous", "return 1", "return 2", false, "", ErrAmbiguous, "matches 2 times"},
		{"replace all", "return 1", "return 2", true,
			"func a() {\n\treturn 2\n}\n\nfunc b() {\n\treturn 2\n}\n", nil, ""},
		{"not found", "return 3", "x", false, "", ErrNotFound, "old text not found"},
		{"whitespace matters", "return  1", "x", false, "", ErrNotFound, "including whitespace"},
		{"empty old", "", "x", false, "", ErrBadRequest, "use write_file"},
		{"same", "a", "a", false, "", ErrBadRequest, "nothing would change"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			f.write("a.go", src)
			must(t, os.Chmod(filepath.Join(f.ws, "a.go"), 0o600))
			pv, perr := PreviewEdit(ctx, f.roots, f.path("a.go"), c.old, c.new, c.all)
			r, err := EditFile(ctx, f.roots, f.path("a.go"), c.old, c.new, c.all)
			if c.kind != nil {
				if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.msg) || !errors.Is(perr, c.kind) {
					t.Fatalf("got %v / preview %v, want %v mentioning %q", err, perr, c.kind, c.msg)
				}
				if f.read("a.go") != src {
					t.Fatal("failed edit changed the file")
				}
				return
			}
			must(t, err)
			must(t, perr)
			if got := f.read("a.go"); got != c.want {
				t.Fatalf("content %q", got)
			}
			if fi, _ := os.Stat(filepath.Join(f.ws, "a.go")); fi.Mode().Perm() != 0o600 {
				t.Fatalf("mode %v", fi.Mode())
			}
			if pv.Diff.Text != r.Diff.Text || !strings.HasPrefix(r.Diff.Text, "--- a/a.go\n+++ b/a.go\n@@ ") || !strings.Contains(r.Diff.Text, "+\treturn 2\n") {
				t.Fatalf("diff %q / preview %q", r.Diff.Text, pv.Diff.Text)
			}
			if r.Replacements != pv.Replacements || r.Bytes != int64(len(c.want)) {
				t.Fatalf("result %+v preview %+v", r, pv)
			}
		})
	}
}

func TestEditRefusals(t *testing.T) {
	f := newFixture(t)
	f.write("bin", "a\x00b")
	if _, err := EditFile(ctx, f.roots, f.path("bin"), "a", "c", false); !errors.Is(err, ErrBinary) {
		t.Fatalf("binary: %v", err)
	}
	if _, err := EditFile(ctx, f.roots, f.path("missing.txt"), "a", "c", false); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("missing: %v", err)
	}
	f.write("x.txt", "aaa")
	if _, err := EditFile(ctx, f.roots, f.path("x.txt"), "a", strings.Repeat("b", MaxWriteBytes/2), true); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("growth over the cap: %v", err)
	}
}

// A file changed by someone else between the read and the rename is not
// overwritten.
func TestEditDetectsConcurrentChange(t *testing.T) {
	f := newFixture(t)
	p := f.file("x.txt", "one\n")
	plan, err := planEdit(ctx, f.roots, p, "one", "two", false)
	must(t, err)
	f.write("x.txt", "someone else\n")
	later := time.Now().Add(time.Hour)
	must(t, os.Chtimes(filepath.Join(f.ws, "x.txt"), later, later))
	if err := replace(ctx, f.roots, p, plan.after, plan.cur.mode, plan.cur.info); !errors.Is(err, ErrChanged) {
		t.Fatalf("replace = %v", err)
	}
	if f.read("x.txt") != "someone else\n" {
		t.Fatal("concurrent change was overwritten")
	}
	assertNoTemp(t, f.ws)
}

func TestPreviewWrite(t *testing.T) {
	f := newFixture(t)
	f.write("a.txt", "one\ntwo\n")
	pv, err := PreviewWrite(ctx, f.roots, f.path("a.txt"), []byte("one\n2\n"))
	must(t, err)
	if pv.Created || pv.Diff.Text != "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n" || pv.Diff.Added != 1 || pv.Diff.Removed != 1 {
		t.Fatalf("preview %+v", pv)
	}
	if f.read("a.txt") != "one\ntwo\n" {
		t.Fatal("preview wrote")
	}
	pv, err = PreviewWrite(ctx, f.roots, f.path("new.txt"), []byte("hi\n"))
	must(t, err)
	if !pv.Created || !strings.HasPrefix(pv.Diff.Text, "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n") {
		t.Fatalf("new file preview %+v", pv)
	}
	if _, err := os.Stat(filepath.Join(f.ws, "new.txt")); err == nil {
		t.Fatal("preview created the file")
	}
}
