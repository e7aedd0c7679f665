package fsops

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/workspace"
)

func TestWriteFile(t *testing.T) {
	f := newFixture(t)
	f.write("script.sh", "#!/bin/sh\n")
	must(t, os.Chmod(filepath.Join(f.ws, "script.sh"), 0o750))

	r, err := WriteFile(ctx, f.roots, f.path("script.sh"), []byte("#!/bin/sh\necho hi\n"))
	must(t, err)
	fi, _ := os.Stat(filepath.Join(f.ws, "script.sh"))
	if r.Created || r.Mode != "0750" || fi.Mode().Perm() != 0o750 || f.read("script.sh") != "#!/bin/sh\necho hi\n" {
		t.Fatalf("overwrite: %+v mode %v", r, fi.Mode())
	}

	r, err = WriteFile(ctx, f.roots, f.path("new/deep/file.txt"), []byte("x"))
	must(t, err)
	fi, _ = os.Stat(filepath.Join(f.ws, "new/deep/file.txt"))
	if !r.Created || r.Bytes != 1 || r.Path != "new/deep/file.txt" || fi.Mode().Perm() != 0o644 {
		t.Fatalf("create: %+v mode %v", r, fi.Mode())
	}
	assertNoTemp(t, f.ws)
}

func TestWriteFileRefusals(t *testing.T) {
	f := newFixture(t)
	f.write("keep.txt", "original")
	f.write("dir/x", "")
	f.write("real.txt", "real")
	must(t, syscall.Mkfifo(filepath.Join(f.ws, "fifo"), 0o644))
	must(t, os.Symlink("real.txt", filepath.Join(f.ws, "link")))
	must(t, os.Symlink(f.outside+"/secret", filepath.Join(f.ws, "out")))

	cases := []struct {
		name string
		path string
		data []byte
		kind error
		msg  string
	}{
		{"too large", "keep.txt", make([]byte, MaxWriteBytes+1), ErrTooLarge, "the limit is"},
		{"directory", "dir", []byte("x"), workspace.ErrNotRegular, "a directory"},
		{"fifo", "fifo", []byte("x"), workspace.ErrNotRegular, "named pipe"},
		{"symlink inside", "link", []byte("x"), ErrSymlinkTarget, "write to real.txt instead"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := WriteFile(ctx, f.roots, f.path(c.path), c.data)
			if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("got %v, want %v mentioning %q", err, c.kind, c.msg)
			}
		})
	}
	if _, err := f.roots.Resolve("out"); !errors.Is(err, workspace.ErrSymlink) {
		t.Fatalf("symlink to outside resolved: %v", err)
	}
	if f.read("keep.txt") != "original" || f.read("real.txt") != "real" {
		t.Fatal("a refused write changed a file")
	}
	assertNoTemp(t, f.ws)
}

// A write that fails after the temporary file is written (here: cancelled
// just before the rename) leaves the original intact and no debris.
func TestWriteFailsMidwayKeepsOriginal(t *testing.T) {
	f := newFixture(t)
	p := f.file("keep.txt", "original")
	cctx, cancel := context.WithCancel(ctx)
	cur, err := loadCurrent(cctx, f.roots, p, false)
	must(t, err)
	cancel()
	if err := replace(cctx, f.roots, p, []byte("partial new content"), cur.mode, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("replace = %v", err)
	}
	if f.read("keep.txt") != "original" {
		t.Fatal("original changed")
	}
	assertNoTemp(t, f.ws)
}

// A directory swapped for a symlink to outside after Resolve: the write
// fails and nothing appears outside.
func TestWriteAfterSwapStaysInside(t *testing.T) {
	f := newFixture(t)
	p := f.file("d/file.txt", "inside")
	must(t, os.Rename(filepath.Join(f.ws, "d"), filepath.Join(f.ws, "d.orig")))
	must(t, os.Symlink(f.outside, filepath.Join(f.ws, "d")))
	if _, err := WriteFile(ctx, f.roots, p, []byte("pwned")); !errors.Is(err, workspace.ErrSymlink) {
		t.Fatalf("write after swap = %v", err)
	}
	if _, err := os.Stat(filepath.Join(f.outside, "file.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("file written outside the workspace")
	}
}

func assertNoTemp(t *testing.T, root string) {
	t.Helper()
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil && strings.HasPrefix(fi.Name(), workspace.TempPrefix) {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
}
