package workspace

import (
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func readAll(t *testing.T, f *os.File) string {
	t.Helper()
	defer f.Close()
	b, err := io.ReadAll(f)
	must(t, err)
	return string(b)
}

func TestOpenRead(t *testing.T) {
	bothModes(t, func(t *testing.T) {
		ws, outside := tree(t)
		must(t, syscall.Mkfifo(filepath.Join(ws, "fifo"), 0o644))
		l, err := net.Listen("unix", filepath.Join(ws, "sock"))
		must(t, err)
		defer l.Close()
		must(t, os.Symlink("src/pkg/a.go", filepath.Join(ws, "file-in")))
		r := newRoots(t, ws)

		p, err := r.Resolve("file-in")
		must(t, err)
		f, err := r.OpenRead(p)
		must(t, err)
		if got := readAll(t, f); got != "package pkg\n" {
			t.Fatalf("read %q", got)
		}

		cases := []struct {
			in   string
			kind error
			msg  string
		}{
			// Opening a FIFO must return at once, not wait for a writer.
			{"fifo", ErrNotRegular, "named pipe"},
			{"sock", ErrNotRegular, "socket"},
			{"src", ErrNotRegular, "use list_dir"},
			{"missing.txt", fs.ErrNotExist, "does not exist"},
		}
		for _, c := range cases {
			p, err := r.Resolve(c.in)
			must(t, err)
			f, err := r.OpenRead(p)
			if err == nil {
				f.Close()
				t.Fatalf("OpenRead(%s) succeeded", c.in)
			}
			if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("OpenRead(%s) = %v, want %v mentioning %q", c.in, err, c.kind, c.msg)
			}
		}

		// An outside Path is refused by OpenRead and allowed by OpenReadOutside.
		op, err := r.ResolveOutside(outside + "/secret")
		must(t, err)
		if _, err := r.OpenRead(op); !errors.Is(err, ErrOutside) {
			t.Fatalf("OpenRead(outside) = %v", err)
		}
		f, err = r.OpenReadOutside(op)
		must(t, err)
		if got := readAll(t, f); got != "CANARY" {
			t.Fatalf("outside read %q", got)
		}
		dev, err := r.ResolveOutside("/dev/zero")
		must(t, err)
		if _, err := r.OpenReadOutside(dev); !errors.Is(err, ErrNotRegular) {
			t.Fatalf("OpenReadOutside(/dev/zero) = %v", err)
		}
	})
}

// A Path that was fine when resolved must not be opened once a component
// has been swapped for a symlink that leads out.
func TestOpenAfterSwapIsRefused(t *testing.T) {
	bothModes(t, func(t *testing.T) {
		ws, outside := tree(t)
		must(t, os.MkdirAll(filepath.Join(ws, "d", "sub"), 0o755))
		write(t, filepath.Join(ws, "d", "secret"), "inside")
		write(t, filepath.Join(ws, "d", "sub", "secret"), "inside")
		r := newRoots(t, ws)

		file, err := r.Resolve("d/secret")
		must(t, err)
		deep, err := r.Resolve("d/sub/secret")
		must(t, err)
		dir, err := r.Resolve("d/sub")
		must(t, err)
		newFile, err := r.Resolve("d/sub/new.txt")
		must(t, err)

		must(t, os.Rename(filepath.Join(ws, "d"), filepath.Join(ws, "d.orig")))
		must(t, os.Symlink(outside, filepath.Join(ws, "d")))

		if f, err := r.OpenRead(file); err == nil {
			t.Fatalf("OpenRead after swap read %q", readAll(t, f))
		} else if !errors.Is(err, ErrSymlink) {
			t.Fatalf("OpenRead after swap = %v, want ErrSymlink", err)
		}
		if f, err := r.OpenRead(deep); err == nil {
			t.Fatalf("OpenRead(deep) after swap read %q", readAll(t, f))
		}
		if d, err := r.OpenDir(dir); err == nil {
			d.Close()
			t.Fatal("OpenDir after swap succeeded")
		}
		if _, err := r.Lstat(deep); !errors.Is(err, ErrSymlink) {
			t.Fatalf("Lstat after swap = %v", err)
		}
		if err := r.MkdirAll(dir, 0o755); !errors.Is(err, ErrSymlink) {
			t.Fatalf("MkdirAll after swap = %v", err)
		}
		if a, err := r.CreateAtomic(newFile, 0o644); err == nil {
			a.Abort()
			t.Fatal("CreateAtomic after swap succeeded")
		}
		if _, err := os.Stat(filepath.Join(outside, "sub", "new.txt")); !errors.Is(err, fs.ErrNotExist) {
			t.Fatal("a file appeared outside the workspace")
		}

		// The final component swapped for a symlink is refused too.
		must(t, os.Remove(filepath.Join(ws, "d")))
		must(t, os.Rename(filepath.Join(ws, "d.orig"), filepath.Join(ws, "d")))
		must(t, os.Remove(filepath.Join(ws, "d", "secret")))
		must(t, os.Symlink(outside+"/secret", filepath.Join(ws, "d", "secret")))
		if f, err := r.OpenRead(file); err == nil {
			t.Fatalf("OpenRead of swapped file read %q", readAll(t, f))
		} else if !errors.Is(err, ErrSymlink) {
			t.Fatalf("OpenRead of swapped file = %v", err)
		}
	})
}

func TestOpenReadOutsideRefusesLaterSymlink(t *testing.T) {
	bothModes(t, func(t *testing.T) {
		ws, outside := tree(t)
		r := newRoots(t, ws)
		p, err := r.ResolveOutside(outside + "/sub/secret")
		must(t, err)
		must(t, os.Rename(outside+"/sub", outside+"/sub.orig"))
		must(t, os.Symlink(ws+"/src", outside+"/sub"))
		if _, err := r.OpenReadOutside(p); !errors.Is(err, ErrSymlink) {
			t.Fatalf("OpenReadOutside after swap = %v", err)
		}
	})
}

func TestLstatMkdir(t *testing.T) {
	bothModes(t, func(t *testing.T) {
		ws, _ := tree(t)
		must(t, os.Symlink("README.md", filepath.Join(ws, "link")))
		r := newRoots(t, ws)
		root, err := r.Resolve(".")
		must(t, err)
		fi, err := r.Lstat(root)
		must(t, err)
		if !fi.IsDir() {
			t.Fatal("root is not a dir")
		}
		link, err := root.Join("link")
		must(t, err)
		fi, err = r.Lstat(link)
		must(t, err)
		if fi.Mode()&fs.ModeSymlink == 0 {
			t.Fatalf("Lstat(link) mode %v", fi.Mode())
		}
		p, err := r.Resolve("a/b/c")
		must(t, err)
		if err := r.Mkdir(p, 0o755); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("Mkdir without parent = %v", err)
		}
		must(t, r.MkdirAll(p, 0o755))
		must(t, r.MkdirAll(p, 0o755))
		fi, err = r.Lstat(p)
		must(t, err)
		if !fi.IsDir() {
			t.Fatal("a/b/c not a dir")
		}
		q, err := r.Resolve("a/d")
		must(t, err)
		must(t, r.Mkdir(q, 0o700))
		if err := r.Mkdir(q, 0o700); !errors.Is(err, fs.ErrExist) {
			t.Fatalf("second Mkdir = %v", err)
		}
		// MkdirAll through a symlinked component is refused even inside.
		must(t, os.Symlink("a", filepath.Join(ws, "alias")))
		al, err := root.Join("alias")
		must(t, err)
		al, err = al.Join("x")
		must(t, err)
		if err := r.MkdirAll(al, 0o755); !errors.Is(err, ErrSymlink) {
			t.Fatalf("MkdirAll through symlink = %v", err)
		}
	})
}

func TestAtomic(t *testing.T) {
	bothModes(t, func(t *testing.T) {
		ws, outside := tree(t)
		r := newRoots(t, ws)
		p, err := r.Resolve("README.md")
		must(t, err)

		a, err := r.CreateAtomic(p, 0o600)
		must(t, err)
		_, err = a.WriteString("new")
		must(t, err)
		// Until Commit, readers see the old content.
		if b, _ := os.ReadFile(p.Abs); string(b) != "hello\n" {
			t.Fatalf("before commit: %q", b)
		}
		must(t, a.Commit())
		must(t, a.Abort()) // no-op after Commit
		b, _ := os.ReadFile(p.Abs)
		fi, _ := os.Stat(p.Abs)
		if string(b) != "new" || fi.Mode().Perm() != 0o600 {
			t.Fatalf("after commit: %q %v", b, fi.Mode())
		}

		a, err = r.CreateAtomic(p, 0o644)
		must(t, err)
		a.WriteString("discarded")
		must(t, a.Abort())
		if b, _ := os.ReadFile(p.Abs); string(b) != "new" {
			t.Fatalf("after abort: %q", b)
		}
		assertNoTemp(t, ws)

		// If the target becomes a symlink to outside before Commit, the
		// rename replaces the link; the outside file is untouched.
		a, err = r.CreateAtomic(p, 0o644)
		must(t, err)
		a.WriteString("replaced")
		must(t, os.Remove(p.Abs))
		must(t, os.Symlink(outside+"/secret", p.Abs))
		must(t, a.Commit())
		if b, _ := os.ReadFile(outside + "/secret"); string(b) != "CANARY" {
			t.Fatalf("outside file changed to %q", b)
		}
		if fi, _ := os.Lstat(p.Abs); !fi.Mode().IsRegular() {
			t.Fatalf("target is %v after commit", fi.Mode())
		}

		// Replacing a directory fails and leaves nothing behind.
		d, err := r.Resolve("src")
		must(t, err)
		a, err = r.CreateAtomic(d, 0o644)
		must(t, err)
		if err := a.Commit(); err == nil {
			t.Fatal("commit over a directory succeeded")
		}
		assertNoTemp(t, ws)
		root, _ := r.Resolve(".")
		if _, err := r.CreateAtomic(root, 0o644); err == nil {
			t.Fatal("CreateAtomic(root) succeeded")
		}
	})
}

func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	must(t, err)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), TempPrefix) {
			t.Fatalf("temporary file %s left behind", e.Name())
		}
	}
}

func TestDirWalk(t *testing.T) {
	ws, _ := tree(t)
	must(t, os.Symlink("/etc", filepath.Join(ws, "etc")))
	r := newRoots(t, ws)
	root, err := r.Resolve(".")
	must(t, err)
	d, err := r.OpenDir(root)
	must(t, err)
	defer d.Close()
	ents, err := d.ReadDir(-1)
	must(t, err)
	if len(ents) != 3 {
		t.Fatalf("entries %v", ents)
	}
	if _, err := d.OpenDir("etc"); !errors.Is(err, ErrSymlink) {
		t.Fatalf("OpenDir through symlink = %v", err)
	}
	if tgt, err := d.Readlink("etc"); err != nil || tgt != "/etc" {
		t.Fatalf("Readlink = %q %v", tgt, err)
	}
	src, err := d.OpenDir("src")
	must(t, err)
	defer src.Close()
	pkg, err := src.OpenDir("pkg")
	must(t, err)
	defer pkg.Close()
	if pkg.Path().Rel != "src/pkg" {
		t.Fatalf("Path = %+v", pkg.Path())
	}
	f, err := pkg.OpenFile("a.go")
	must(t, err)
	if readAll(t, f) != "package pkg\n" {
		t.Fatal("bad content")
	}
	fi, err := pkg.Lstat("a.go")
	must(t, err)
	if fi.Size() != 12 {
		t.Fatalf("size %d", fi.Size())
	}
	if _, _, ok := FileID(fi); !ok {
		t.Fatal("FileID failed")
	}
	if _, err := d.OpenFile("../outside/secret"); !errors.Is(err, ErrInvalidPath) {
		t.Fatalf("OpenFile(..) = %v", err)
	}
}

// The parent directory itself swapped for a symlink: every kind of open
// reports a symlink, whichever way the kernel walks.
func TestParentSwapIsSymlinkError(t *testing.T) {
	bothModes(t, func(t *testing.T) {
		ws, outside := tree(t)
		r := newRoots(t, ws)
		p, err := r.Resolve("src/pkg/a.go")
		must(t, err)
		must(t, os.Rename(ws+"/src/pkg", ws+"/src/pkg.orig"))
		must(t, os.Symlink(outside, ws+"/src/pkg"))
		if _, err := r.Lstat(p); !errors.Is(err, ErrSymlink) {
			t.Errorf("Lstat = %v", err)
		}
		if err := r.MkdirAll(p.Parent(), 0o755); !errors.Is(err, ErrSymlink) {
			t.Errorf("MkdirAll = %v", err)
		}
		if _, err := r.CreateAtomic(p, 0o644); !errors.Is(err, ErrSymlink) {
			t.Errorf("CreateAtomic = %v", err)
		}
		if _, err := r.OpenDir(p.Parent()); !errors.Is(err, ErrSymlink) {
			t.Errorf("OpenDir = %v", err)
		}
	})
}
