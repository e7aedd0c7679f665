//go:build linux || darwin

package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

func openRootDir(p string) (*os.File, error) {
	fd, err := unix.Open(p, dirPathFlags|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), p), nil
}

// readFlags never block: a FIFO opened O_RDONLY would wait for a writer,
// so O_NONBLOCK is set until fstat has shown a regular file.
const readFlags = unix.O_RDONLY | unix.O_NONBLOCK | unix.O_NOCTTY

// OpenRead opens a regular file inside the workspace for reading. The open
// is confined to the root by the kernel and refuses symlinks, FIFOs,
// devices, sockets and directories.
func (r *Roots) OpenRead(p Path) (*os.File, error) {
	rt, err := r.inside(p)
	if err != nil {
		return nil, err
	}
	fd, err := openBeneath(int(rt.dir.Fd()), p.Rel, readFlags, 0)
	if err != nil {
		return nil, openError(p, err)
	}
	return regularFile(fd, p)
}

// OpenReadOutside opens p wherever it is, for a read a human approved.
// The path is walked from / with symlinks refused, so the file opened is
// the one that was resolved and approved, not one swapped in since.
func (r *Roots) OpenReadOutside(p Path) (*os.File, error) {
	if p.Inside {
		return r.OpenRead(p)
	}
	if !strings.HasPrefix(p.Abs, "/") {
		return nil, pathErr(p.Input, ErrInvalidPath, nil, fmt.Sprintf("path %s was not resolved; call ResolveOutside first", p.display()))
	}
	rootfd, err := unix.Open("/", dirPathFlags|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("cannot open /: %w", err)
	}
	defer unix.Close(rootfd)
	rel := strings.TrimPrefix(p.Abs, "/")
	if rel == "" {
		rel = "."
	}
	fd, err := openBeneath(rootfd, rel, readFlags, 0)
	if err != nil {
		return nil, openError(p, err)
	}
	return regularFile(fd, p)
}

func regularFile(fd int, p Path) (*os.File, error) {
	st, err := fstatFD(fd, p.Name())
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("cannot stat %s: %w", p.display(), err)
	}
	if !st.Mode().IsRegular() {
		unix.Close(fd)
		return nil, notRegular(p, st.Mode())
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("cannot read %s: %w", p.display(), err)
	}
	return os.NewFile(uintptr(fd), p.Abs), nil
}

func notRegular(p Path, m fs.FileMode) error {
	hint := "only regular files can be read or written"
	if m.IsDir() {
		hint = "use list_dir to see what it contains"
	}
	return pathErr(p.Input, ErrNotRegular, nil, fmt.Sprintf("%s is %s; %s", p.display(), KindName(m), hint))
}

// OpenDir opens a directory inside the workspace for listing.
func (r *Roots) OpenDir(p Path) (*Dir, error) {
	rt, err := r.inside(p)
	if err != nil {
		return nil, err
	}
	fd, err := openBeneath(int(rt.dir.Fd()), p.Rel, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, openError(p, err)
	}
	return &Dir{f: os.NewFile(uintptr(fd), p.Abs), path: p}, nil
}

// Lstat describes p without following a final symlink.
func (r *Roots) Lstat(p Path) (fs.FileInfo, error) {
	rt, err := r.inside(p)
	if err != nil {
		return nil, err
	}
	if p.Rel == "." {
		st, err := fstatFD(int(rt.dir.Fd()), p.Name())
		if err != nil {
			return nil, openError(p, err)
		}
		return st, nil
	}
	dirfd, err := openBeneath(int(rt.dir.Fd()), p.Parent().Rel, dirPathFlags, 0)
	if err != nil {
		return nil, openError(p, err)
	}
	defer unix.Close(dirfd)
	st, err := fstatAt(dirfd, p.Name())
	if err != nil {
		return nil, openError(p, err)
	}
	return st, nil
}

// Mkdir creates the directory p; its parent must exist.
func (r *Roots) Mkdir(p Path, perm fs.FileMode) error {
	rt, err := r.inside(p)
	if err != nil {
		return err
	}
	if p.Rel == "." {
		return nil
	}
	dirfd, err := openBeneath(int(rt.dir.Fd()), p.Parent().Rel, dirPathFlags, 0)
	if err != nil {
		return openError(p, err)
	}
	defer unix.Close(dirfd)
	if err := unix.Mkdirat(dirfd, p.Name(), uint32(perm.Perm())); err != nil {
		return openError(p, err)
	}
	return nil
}

// MkdirAll creates p and any missing parents, one component at a time
// relative to the previous directory and never through a symlink.
func (r *Roots) MkdirAll(p Path, perm fs.FileMode) error {
	rt, err := r.inside(p)
	if err != nil {
		return err
	}
	if err := checkRel(p.Rel); err != nil {
		return openError(p, err)
	}
	if p.Rel == "." {
		return nil
	}
	cur, owned := int(rt.dir.Fd()), false
	defer func() {
		if owned {
			unix.Close(cur)
		}
	}()
	for _, c := range strings.Split(p.Rel, "/") {
		fd, err := openatRetry(cur, c, dirPathFlags|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.ENOENT) {
			if merr := unix.Mkdirat(cur, c, uint32(perm.Perm())); merr != nil && !errors.Is(merr, unix.EEXIST) {
				return openError(p, merr)
			}
			fd, err = openatRetry(cur, c, dirPathFlags|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		}
		if err != nil {
			return openError(p, symlinkOr(cur, c, err))
		}
		if owned {
			unix.Close(cur)
		}
		cur, owned = fd, true
	}
	return nil
}

func (r *Roots) inside(p Path) (root, error) {
	if !p.Inside || p.Rel == "" {
		return root{}, pathErr(p.Input, ErrOutside, nil,
			fmt.Sprintf("path %s is outside the workspace (%s)", p.display(), r.describe()))
	}
	return r.rootFor(p)
}

// openError turns an errno from a confined open into a sentence.
func openError(p Path, err error) error {
	name := p.display()
	var pe *PathError
	if errors.As(err, &pe) {
		return err
	}
	switch {
	case errors.Is(err, unix.ELOOP):
		return pathErr(p.Input, ErrSymlink, err, fmt.Sprintf("path %s goes through a symlink at open time (it is one, or it changed after it was checked); use the path the symlink points to", name))
	case errors.Is(err, unix.EXDEV):
		return pathErr(p.Input, ErrOutside, err, fmt.Sprintf("path %s leads outside the workspace %s", name, p.Root))
	case errors.Is(err, unix.ENOENT):
		return pathErr(p.Input, nil, fs.ErrNotExist, fmt.Sprintf("%s does not exist", name))
	case errors.Is(err, unix.ENOTDIR):
		return pathErr(p.Input, ErrInvalidPath, err, fmt.Sprintf("part of path %s is not a directory", name))
	case errors.Is(err, unix.EISDIR):
		return pathErr(p.Input, ErrNotRegular, err, fmt.Sprintf("%s is a directory", name))
	case errors.Is(err, unix.EEXIST):
		return pathErr(p.Input, nil, fs.ErrExist, fmt.Sprintf("%s already exists", name))
	case errors.Is(err, unix.EACCES), errors.Is(err, unix.EPERM):
		return pathErr(p.Input, nil, fs.ErrPermission, fmt.Sprintf("permission denied for %s", name))
	case errors.Is(err, unix.ENXIO), errors.Is(err, unix.EOPNOTSUPP):
		return pathErr(p.Input, ErrNotRegular, err, fmt.Sprintf("%s is a socket or device; only regular files can be read or written", name))
	case errors.Is(err, unix.ENOSPC), errors.Is(err, unix.EDQUOT):
		return pathErr(p.Input, nil, err, fmt.Sprintf("no space left to write %s", name))
	case errors.Is(err, unix.EROFS):
		return pathErr(p.Input, nil, err, fmt.Sprintf("%s is on a read-only filesystem", name))
	case errors.Is(err, unix.EINVAL):
		return pathErr(p.Input, ErrInvalidPath, err, fmt.Sprintf("path %s is not in resolved form; resolve it first", name))
	}
	return pathErr(p.Input, nil, err, fmt.Sprintf("cannot open %s: %v", name, err))
}
