package snapshot

import (
	"fmt"
	"strings"
	"testing"
)

func TestUnifiedDiff(t *testing.T) {
	lines := func(n int, f func(i int) string) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			b.WriteString(f(i))
		}
		return b.String()
	}
	cases := []struct {
		name, a, b, want string
	}{
		{"add to empty", "", "x\n", "--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+x\n"},
		{"delete all", "x\ny\n", "", "--- a/f\n+++ b/f\n@@ -1,2 +0,0 @@\n-x\n-y\n"},
		{"middle change", "a\nb\nc\nd\ne\nf\ng\n", "a\nb\nc\nX\ne\nf\ng\n",
			"--- a/f\n+++ b/f\n@@ -1,7 +1,7 @@\n a\n b\n c\n-d\n+X\n e\n f\n g\n"},
		{"no newline at end", "a\n", "a\nb", "--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n a\n+b\n\\ No newline at end of file\n"},
		{"two hunks", lines(20, func(i int) string { return fmt.Sprintf("%d\n", i) }),
			lines(20, func(i int) string {
				if i == 2 || i == 19 {
					return "x\n"
				}
				return fmt.Sprintf("%d\n", i)
			}),
			"--- a/f\n+++ b/f\n@@ -1,5 +1,5 @@\n 1\n-2\n+x\n 3\n 4\n 5\n@@ -16,5 +16,5 @@\n 16\n 17\n 18\n-19\n+x\n 20\n"},
		{"interleaved", "a\nb\nc\n", "b\nc\nd\n", "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n-a\n b\n c\n+d\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := unifiedDiff("f", []byte(tc.a), []byte(tc.b))
			if !ok || got != tc.want {
				t.Fatalf("got ok=%v\n%s\nwant\n%s", ok, got, tc.want)
			}
		})
	}
	if _, ok := unifiedDiff("f", []byte("a\x00b"), []byte("c")); ok {
		t.Error("binary diffed")
	}
}

func TestExcluder(t *testing.T) {
	ex := newExcluder([]string{"node_modules/", "*.log", "build/out/", "/docs/tmp"})
	cases := []struct {
		rel   string
		dir   bool
		match bool
	}{
		{"node_modules", true, true},
		{"a/b/node_modules", true, true},
		{"node_modules", false, false},
		{"x.log", false, true},
		{"deep/x.log", false, true},
		{"build/out", true, true},
		{"src/build/out", true, false},
		{"docs/tmp", false, true},
		{"src/main.go", false, false},
	}
	for _, c := range cases {
		if got := ex.match(c.rel, c.dir); got != c.match {
			t.Errorf("match(%q, dir=%v) = %v", c.rel, c.dir, got)
		}
	}
	if !ex.matchesAncestor("a/node_modules/x/y.js", false) {
		t.Error("ancestor exclusion missed")
	}
}
