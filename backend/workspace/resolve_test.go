package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	ws, outside := tree(t)
	ws2 := filepath.Join(filepath.Dir(ws), "ws2")
	must(t, os.Mkdir(ws2, 0o755))
	must(t, os.Symlink(filepath.Join(outside, "secret"), filepath.Join(ws, "file-out")))
	must(t, os.Symlink(outside, filepath.Join(ws, "dir-out")))
	must(t, os.Symlink("../outside/secret", filepath.Join(ws, "rel-out")))
	must(t, os.Symlink("src/pkg/a.go", filepath.Join(ws, "file-in")))
	must(t, os.Symlink("src", filepath.Join(ws, "dir-in")))
	must(t, os.Symlink("src/missing.go", filepath.Join(ws, "dangling-in")))
	must(t, os.Symlink(filepath.Join(outside, "missing"), filepath.Join(ws, "dangling-out")))
	must(t, os.Symlink("loop2", filepath.Join(ws, "loop1")))
	must(t, os.Symlink("loop1", filepath.Join(ws, "loop2")))
	// dir-in/.. must go to the parent of src's real location, i.e. ws.
	must(t, os.Symlink(filepath.Join(ws, "src", "pkg"), filepath.Join(ws, "deep")))

	r := newRoots(t, ws, ws2)
	ok := []struct {
		in, rel, root string
		exists, link  bool
	}{
		{"README.md", "README.md", ws, true, false},
		{".", ".", ws, true, false},
		{"./src/../README.md", "README.md", ws, true, false},
		{"src/pkg/a.go", "src/pkg/a.go", ws, true, false},
		{"new/dir/file.txt", "new/dir/file.txt", ws, false, false},
		{"new/../src", "src", ws, true, false},
		{"new/../dir-in/pkg", "src/pkg", ws, true, false},
		{"../ws/README.md", "README.md", ws, true, false},
		{ws + "/README.md", "README.md", ws, true, false},
		{ws2 + "/x", "x", ws2, false, false},
		{"file-in", "src/pkg/a.go", ws, true, true},
		{"dir-in/pkg/a.go", "src/pkg/a.go", ws, true, false},
		{"dangling-in", "src/missing.go", ws, false, true},
		{"deep/../../README.md", "README.md", ws, true, false},
		{"src//pkg/", "src/pkg", ws, true, false},
	}
	for _, c := range ok {
		t.Run("ok "+c.in, func(t *testing.T) {
			p, err := r.Resolve(c.in)
			if err != nil {
				t.Fatalf("Resolve(%q): %v", c.in, err)
			}
			if p.Rel != c.rel || p.Root != c.root || p.Exists != c.exists || !p.Inside || p.Symlink != c.link {
				t.Fatalf("Resolve(%q) = %+v, want rel=%s root=%s exists=%v symlink=%v", c.in, p, c.rel, c.root, c.exists, c.link)
			}
			if want := filepath.Join(c.root, c.rel); p.Abs != want {
				t.Fatalf("Abs = %s, want %s", p.Abs, want)
			}
		})
	}

	bad := []struct {
		in   string
		kind error
		msg  string
	}{
		{"../outside/secret", ErrOutside, "escapes the workspace " + ws},
		{"../../../../etc/passwd", ErrOutside, "escapes the workspace"},
		{"/etc/passwd", ErrOutside, "is outside the workspace"},
		{outside + "/secret", ErrOutside, "is outside the workspace"},
		{"file-out", ErrSymlink, "goes through a symlink to " + outside + "/secret"},
		{"rel-out", ErrSymlink, "outside the workspace " + ws},
		{"dir-out/secret", ErrSymlink, "goes through a symlink"},
		{"dir-out/sub/new.txt", ErrSymlink, "goes through a symlink"},
		{"dangling-out", ErrSymlink, "goes through a symlink"},
		{"loop1", ErrSymlink, "more than 40 symlinks"},
		{"README.md/x", ErrInvalidPath, "is a file"},
		{"", ErrInvalidPath, "path is empty"},
		{"a\x00b", ErrInvalidPath, "NUL byte"},
		{"bad\xff.txt", ErrInvalidPath, "not valid UTF-8"},
		{strings.Repeat("a/", 2100), ErrInvalidPath, "the limit is 4096"},
		{strings.Repeat("x", 256), ErrInvalidPath, "the limit is 255"},
		{"~/.ssh/id_rsa", ErrInvalidPath, "not expanded"},
	}
	for _, c := range bad {
		name := c.in
		if len(name) > 40 {
			name = name[:40]
		}
		t.Run("bad "+name, func(t *testing.T) {
			p, err := r.Resolve(c.in)
			if err == nil {
				t.Fatalf("Resolve(%q) = %+v, want error", c.in, p)
			}
			if !errors.Is(err, c.kind) {
				t.Errorf("error %q is not %v", err, c.kind)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %q does not mention %q", err, c.msg)
			}
		})
	}
}

func TestResolveOutside(t *testing.T) {
	ws, outside := tree(t)
	must(t, os.Symlink(outside, filepath.Join(ws, "dir-out")))
	r := newRoots(t, ws)
	cases := []struct {
		in, abs string
		inside  bool
	}{
		{"README.md", ws + "/README.md", true},
		{outside + "/secret", outside + "/secret", false},
		{"dir-out/sub/secret", outside + "/sub/secret", false},
		{"../outside/nothing", outside + "/nothing", false},
	}
	for _, c := range cases {
		p, err := r.ResolveOutside(c.in)
		if err != nil {
			t.Fatalf("ResolveOutside(%q): %v", c.in, err)
		}
		if p.Abs != c.abs || p.Inside != c.inside {
			t.Errorf("ResolveOutside(%q) = %+v, want abs=%s inside=%v", c.in, p, c.abs, c.inside)
		}
		if !p.Inside && (p.Rel != "" || p.Root != "") {
			t.Errorf("outside path carries root %q rel %q", p.Root, p.Rel)
		}
	}
	if _, err := r.ResolveOutside("x\x00"); !errors.Is(err, ErrInvalidPath) {
		t.Errorf("NUL: got %v", err)
	}
}

func TestPathJoinParent(t *testing.T) {
	ws, _ := tree(t)
	r := newRoots(t, ws)
	p, err := r.Resolve(".")
	must(t, err)
	c, err := p.Join("src")
	must(t, err)
	c, err = c.Join("pkg")
	must(t, err)
	if c.Rel != "src/pkg" || c.Abs != ws+"/src/pkg" {
		t.Fatalf("Join = %+v", c)
	}
	if par := c.Parent(); par.Rel != "src" || par.Abs != ws+"/src" {
		t.Fatalf("Parent = %+v", par)
	}
	if par := p.Parent(); par.Rel != "." || par.Abs != ws {
		t.Fatalf("root Parent = %+v", par)
	}
	for _, n := range []string{"", ".", "..", "a/b", "x\x00"} {
		if _, err := p.Join(n); !errors.Is(err, ErrInvalidPath) {
			t.Errorf("Join(%q) = %v, want ErrInvalidPath", n, err)
		}
	}
}
