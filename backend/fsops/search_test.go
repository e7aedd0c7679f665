package fsops

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/workspace"
)

func TestSearchFiles(t *testing.T) {
	f := newFixture(t)
	f.writeAll(map[string]string{
		".gitignore":       "vendor/\n*.gen.go\n",
		"main.go":          "package main\n\nfunc main() {\n\tNEEDLE()\n}\n",
		"x.gen.go":         "NEEDLE generated\n",
		"vendor/lib.go":    "NEEDLE vendored\n",
		"web/app.ts":       "// NEEDLE: ts\r\nconst x = 1\n",
		"web/deep/more.ts": "NEEDLE deep\n",
		"web/app.tsx":      "NEEDLE tsx\n",
		"bin.dat":          "NEEDLE\x00binary",
		".git/config":      "NEEDLE in git\n",
		"long.txt":         strings.Repeat("é", 300) + "NEEDLE" + strings.Repeat("z", 300) + "\n",
	})
	must(t, os.Symlink(f.outside, filepath.Join(f.ws, "escape")))
	must(t, os.WriteFile(filepath.Join(f.outside, "beyond.txt"), []byte("NEEDLE outside\n"), 0o644))

	cases := []struct {
		name, pattern, path, glob string
		want                      []string // path:line:column
	}{
		// Breadth first: web/app.tsx comes before web/deep/more.ts.
		{"all", "NEEDLE", ".", "", []string{"long.txt:1:601", "main.go:4:2", "web/app.ts:1:4", "web/app.tsx:1:1", "web/deep/more.ts:1:1"}},
		{"basename glob", "NEEDLE", ".", "*.ts", []string{"web/app.ts:1:4", "web/deep/more.ts:1:1"}},
		{"doublestar glob", "NEEDLE", ".", "**/*.ts", []string{"web/app.ts:1:4", "web/deep/more.ts:1:1"}},
		{"anchored glob", "NEEDLE", "web", "deep/*.ts", []string{"web/deep/more.ts:1:1"}},
		{"one file", "x = 1$", "web/app.ts", "", []string{"web/app.ts:2:7"}},
		{"regexp", `func \w+\(\)`, ".", "", []string{"main.go:3:1"}},
		{"case insensitive", `(?i)needle: TS`, ".", "", []string{"web/app.ts:1:4"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := SearchFiles(ctx, f.roots, SearchRequest{Pattern: c.pattern, Path: f.path(c.path), Glob: c.glob})
			must(t, err)
			var got []string
			for _, m := range r.Matches {
				got = append(got, fmt.Sprintf("%s:%d:%d", m.Path, m.Line, m.Column))
			}
			if strings.Join(got, " ") != strings.Join(c.want, " ") {
				t.Fatalf("got  %v\nwant %v", got, c.want)
			}
		})
	}

	r, err := SearchFiles(ctx, f.roots, SearchRequest{Pattern: "NEEDLE", Path: f.path(".")})
	must(t, err)
	if r.FilesSkipped != 1 || r.Ignored != 2 {
		t.Fatalf("skipped %d ignored %d", r.FilesSkipped, r.Ignored)
	}
	for _, m := range r.Matches {
		if m.Path == "long.txt" {
			if n := len([]rune(m.Text)); n > MaxMatchLineChars+2 || !strings.Contains(m.Text, "NEEDLE") {
				t.Fatalf("excerpt %d runes: %q", n, m.Text)
			}
		}
		if strings.HasSuffix(m.Text, "\r") {
			t.Fatalf("CR kept: %q", m.Text)
		}
	}
}

func TestSearchLimitsAndErrors(t *testing.T) {
	f := newFixture(t)
	f.write("many.txt", strings.Repeat("hit\n", 50))
	f.write("more.txt", strings.Repeat("hit\n", 50))
	f.write("big.txt", strings.Repeat("hit\n", MaxSearchFileBytes/4+1))

	r, err := SearchFiles(ctx, f.roots, SearchRequest{Pattern: "hit", Path: f.path("."), MaxMatches: 60})
	must(t, err)
	if len(r.Matches) != 60 || !r.Truncated || r.FilesSkipped != 1 {
		t.Fatalf("matches %d truncated %v skipped %d", len(r.Matches), r.Truncated, r.FilesSkipped)
	}
	bad := []struct{ pattern, glob, msg string }{
		{"", "", "pattern is empty"},
		{"(unclosed", "", "not a valid regular expression"},
		{`(?=look)`, "", "not a valid regular expression"},
		{strings.Repeat("a", MaxPatternBytes+1), "", "the limit is"},
	}
	for _, b := range bad {
		if _, err := SearchFiles(ctx, f.roots, SearchRequest{Pattern: b.pattern, Path: f.path("."), Glob: b.glob}); !errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), b.msg) {
			t.Errorf("pattern %.20q: %v", b.pattern, err)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := SearchFiles(cancelled, f.roots, SearchRequest{Pattern: "hit", Path: f.path(".")}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}

func BenchmarkSearch(b *testing.B) {
	base := b.TempDir()
	ws := filepath.Join(base, "ws")
	for i := range 200 {
		p := filepath.Join(ws, fmt.Sprintf("d%d", i%20), fmt.Sprintf("f%d.go", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(strings.Repeat("some ordinary line of code\n", 500)+"needle\n"), 0o644)
	}
	roots, err := workspace.New(ws)
	if err != nil {
		b.Fatal(err)
	}
	defer roots.Close()
	p, _ := roots.Resolve(".")
	for b.Loop() {
		SearchFiles(ctx, roots, SearchRequest{Pattern: "needle", Path: p})
	}
}
