//go:build linux || darwin

package workspace

import (
	"fmt"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// Dir is an open directory inside the workspace. Everything opened through
// it is a direct child opened with O_NOFOLLOW, so a walk built on Dir never
// leaves the tree it started in.
type Dir struct {
	f    *os.File
	path Path
}

// Path is where the directory was opened.
func (d *Dir) Path() Path { return d.path }

// Close releases the descriptor.
func (d *Dir) Close() error { return d.f.Close() }

// ReadDir returns up to n entries (all when n <= 0) in directory order.
// Use Lstat for sizes and modes: DirEntry.Info goes back through the path.
func (d *Dir) ReadDir(n int) ([]fs.DirEntry, error) { return d.f.ReadDir(n) }

// Lstat describes the child name without following a symlink.
func (d *Dir) Lstat(name string) (fs.FileInfo, error) {
	p, err := d.path.Join(name)
	if err != nil {
		return nil, err
	}
	st, err := fstatAt(int(d.f.Fd()), name)
	if err != nil {
		return nil, openError(p, err)
	}
	return st, nil
}

// Readlink returns the target of the symlink name.
func (d *Dir) Readlink(name string) (string, error) {
	buf := make([]byte, 4096)
	n, err := unix.Readlinkat(int(d.f.Fd()), name, buf)
	if err != nil {
		return "", fmt.Errorf("cannot read symlink %s: %w", name, err)
	}
	return string(buf[:n]), nil
}

// OpenDir opens the child directory name.
func (d *Dir) OpenDir(name string) (*Dir, error) {
	p, err := d.path.Join(name)
	if err != nil {
		return nil, err
	}
	fd, err := openatRetry(int(d.f.Fd()), name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, openError(p, symlinkOr(int(d.f.Fd()), name, err))
	}
	return &Dir{f: os.NewFile(uintptr(fd), p.Abs), path: p}, nil
}

// OpenFile opens the child name for reading if it is a regular file.
func (d *Dir) OpenFile(name string) (*os.File, error) {
	p, err := d.path.Join(name)
	if err != nil {
		return nil, err
	}
	fd, err := openatRetry(int(d.f.Fd()), name, readFlags|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, openError(p, symlinkOr(int(d.f.Fd()), name, err))
	}
	return regularFile(fd, p)
}
