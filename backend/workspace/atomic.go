//go:build linux || darwin

package workspace

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// TempPrefix starts the name of every temporary file an atomic write
// leaves behind if the process dies midway; snapshot and listing code may
// skip such names.
const TempPrefix = ".gatehouse-tmp-"

// AtomicFile is a temporary file beside its target. Write to it, then
// Commit renames it over the target in one step, so readers see the old
// file or the new one, never a mix. The rename happens in the directory
// descriptor opened at creation, and rename never follows a symlink at the
// destination, so nothing outside the workspace can be written.
type AtomicFile struct {
	*os.File
	dir  *os.File
	tmp  string
	path Path
	done bool
}

// CreateAtomic starts an atomic replace of p with the given permissions.
// The parent directory must exist (see MkdirAll).
func (r *Roots) CreateAtomic(p Path, perm fs.FileMode) (*AtomicFile, error) {
	rt, err := r.inside(p)
	if err != nil {
		return nil, err
	}
	if p.Rel == "." {
		return nil, pathErr(p.Input, ErrNotRegular, nil, fmt.Sprintf("%s is the workspace root directory; name a file inside it", p.display()))
	}
	dirfd, err := openBeneath(int(rt.dir.Fd()), p.Parent().Rel, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, openError(p.Parent(), err)
	}
	dir := os.NewFile(uintptr(dirfd), p.Parent().Abs)
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := TempPrefix + hex.EncodeToString(rnd[:])
	fd, err := openatRetry(dirfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		dir.Close()
		return nil, openError(p, err)
	}
	// The umask must not change the mode we were asked to keep.
	if err := unix.Fchmod(fd, uint32(perm.Perm())); err != nil {
		unix.Close(fd)
		unix.Unlinkat(dirfd, tmp, 0)
		dir.Close()
		return nil, openError(p, err)
	}
	return &AtomicFile{File: os.NewFile(uintptr(fd), p.Parent().Abs+"/"+tmp), dir: dir, tmp: tmp, path: p}, nil
}

// Target describes what is at the destination right now (without
// following a symlink), so callers can notice a concurrent change.
func (a *AtomicFile) Target() (fs.FileInfo, error) {
	st, err := fstatAt(int(a.dir.Fd()), a.path.Name())
	if err != nil {
		return nil, openError(a.path, err)
	}
	return st, nil
}

// Commit flushes the data, renames it over the target and flushes the
// directory, so the new content survives a crash once Commit returns.
func (a *AtomicFile) Commit() error {
	if a.done {
		return errors.New("atomic write already finished")
	}
	if err := a.File.Sync(); err != nil {
		a.Abort()
		return openError(a.path, err)
	}
	if err := a.File.Close(); err != nil {
		a.Abort()
		return openError(a.path, err)
	}
	dfd := int(a.dir.Fd())
	if err := unix.Renameat(dfd, a.tmp, dfd, a.path.Name()); err != nil {
		a.Abort()
		return openError(a.path, err)
	}
	a.done = true
	// The rename is done; a failed directory sync only weakens durability.
	unix.Fsync(dfd)
	return a.dir.Close()
}

// Abort removes the temporary file and leaves the target untouched. It is
// safe to call after Commit (it then does nothing), so defer it.
func (a *AtomicFile) Abort() error {
	if a.done {
		return nil
	}
	a.done = true
	a.File.Close()
	err := unix.Unlinkat(int(a.dir.Fd()), a.tmp, 0)
	a.dir.Close()
	if err != nil && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("cannot remove temporary file %s: %w", a.tmp, err)
	}
	return nil
}
