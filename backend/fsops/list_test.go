package fsops

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/workspace"
)

func listPaths(r ListResult) []string {
	var out []string
	for _, e := range r.Entries {
		out = append(out, e.Path)
	}
	return out
}

func TestListDirGitignore(t *testing.T) {
	f := newFixture(t)
	f.writeAll(map[string]string{
		".gitignore":              "*.log\n!keep.log\nbuild/\n/dist\nnode_modules\n",
		".git/HEAD":               "ref: refs/heads/main\n",
		".git/info/exclude":       "secret.env\n",
		"a.go":                    "package a\n",
		"debug.log":               "",
		"keep.log":                "",
		"secret.env":              "",
		"build/out":               "",
		"dist/x":                  "",
		"src/dist/y":              "",
		"src/build":               "", // a file named build: dir-only rule does not apply
		"src/.gitignore":          "*.tmp\n!important.tmp\n",
		"src/a.tmp":               "",
		"src/important.tmp":       "",
		"node_modules/m/index.js": "",
	})
	must(t, os.Symlink(f.outside, filepath.Join(f.ws, "escape")))

	r, err := ListDir(ctx, f.roots, f.path("."), ListOptions{Depth: 5})
	must(t, err)
	want := []string{".git", ".gitignore", "a.go", "escape", "keep.log", "src", "src/.gitignore",
		"src/build", "src/dist", "src/dist/y", "src/important.tmp"}
	if got := listPaths(r); !slices.Equal(got, want) {
		t.Fatalf("got  %v\nwant %v", got, want)
	}
	if r.Ignored != 6 || r.Truncated {
		t.Fatalf("ignored %d truncated %v", r.Ignored, r.Truncated)
	}
	for _, e := range r.Entries {
		switch e.Path {
		case "escape":
			if e.Type != "symlink" || e.Target != f.outside {
				t.Errorf("symlink entry %+v", e)
			}
		case "a.go":
			if e.Type != "file" || e.Size != 10 || e.Mode != "0644" {
				t.Errorf("file entry %+v", e)
			}
		case "src":
			if e.Type != "dir" {
				t.Errorf("dir entry %+v", e)
			}
		}
	}

	// Listing a subdirectory applies the ignore files above it.
	r, err = ListDir(ctx, f.roots, f.path("src"), ListOptions{})
	must(t, err)
	if got := listPaths(r); !slices.Equal(got, []string{".gitignore", "build", "dist", "important.tmp"}) {
		t.Fatalf("subdir: %v", got)
	}
	// An ignored directory asked for by name is listed.
	r, err = ListDir(ctx, f.roots, f.path("build"), ListOptions{})
	must(t, err)
	if got := listPaths(r); !slices.Equal(got, []string{"out"}) {
		t.Fatalf("ignored dir: %v", got)
	}
}

func TestListDirLimits(t *testing.T) {
	f := newFixture(t)
	for i := range 30 {
		f.write(fmt.Sprintf("d%02d/f", i), "")
	}
	f.write("a/b/c/d/e/f/g/h", "")

	r, err := ListDir(ctx, f.roots, f.path("."), ListOptions{Depth: 2, MaxEntries: 40})
	must(t, err)
	if !r.Truncated || len(r.Entries) != 40 {
		t.Fatalf("truncated %v entries %d", r.Truncated, len(r.Entries))
	}
	// Breadth first: every top-level entry made it in.
	for i := range 30 {
		if !slices.Contains(listPaths(r), fmt.Sprintf("d%02d", i)) {
			t.Fatalf("d%02d missing from a truncated listing", i)
		}
	}
	r, err = ListDir(ctx, f.roots, f.path("a"), ListOptions{Depth: 50})
	must(t, err)
	if got := listPaths(r); len(got) != MaxListDepth || r.Note == "" {
		t.Fatalf("depth clamp: %v %q", got, r.Note)
	}
	if _, err := ListDir(ctx, f.roots, f.path("a/b/c/d/e/f/g/h"), ListOptions{}); !errors.Is(err, workspace.ErrNotRegular) {
		t.Fatalf("file: %v", err)
	}
	if _, err := ListDir(ctx, f.roots, f.path("missing"), ListOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing: %v", err)
	}
	out, err := f.roots.ResolveOutside(f.outside)
	must(t, err)
	if _, err := ListDir(ctx, f.roots, out, ListOptions{}); !errors.Is(err, workspace.ErrOutside) {
		t.Fatalf("outside: %v", err)
	}
}
