//go:build linux || darwin

package workspace

import (
	"io/fs"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// statInfo adapts a stat buffer obtained through a descriptor (fstatat)
// to fs.FileInfo; os.Lstat would go back through the path.
type statInfo struct {
	name string
	st   unix.Stat_t
}

func (s *statInfo) Name() string       { return s.name }
func (s *statInfo) Size() int64        { return s.st.Size }
func (s *statInfo) Mode() fs.FileMode  { return modeOf(uint32(s.st.Mode)) }
func (s *statInfo) ModTime() time.Time { return mtime(&s.st) }
func (s *statInfo) IsDir() bool        { return s.Mode().IsDir() }
func (s *statInfo) Sys() any           { return &s.st }

func modeOf(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		mode |= fs.ModeDevice
	}
	if m&unix.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&unix.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&unix.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}

// FileID returns the device and inode behind a FileInfo from this package
// or from os, to notice a file replaced between two looks.
func FileID(fi fs.FileInfo) (dev, ino uint64, ok bool) {
	switch st := fi.Sys().(type) {
	case *unix.Stat_t:
		return uint64(st.Dev), st.Ino, true
	default:
		return sysFileID(fi)
	}
}

// fstatFD stats an open descriptor.
func fstatFD(fd int, name string) (*statInfo, error) {
	s := &statInfo{name: name}
	if err := unix.Fstat(fd, &s.st); err != nil {
		return nil, err
	}
	return s, nil
}

func fstatAt(dirfd int, name string) (*statInfo, error) {
	s := &statInfo{name: name}
	if err := unix.Fstatat(dirfd, name, &s.st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, err
	}
	return s, nil
}

func mtime(st *unix.Stat_t) time.Time { return time.Unix(int64(st.Mtim.Sec), int64(st.Mtim.Nsec)) }

func sysFileID(fi fs.FileInfo) (uint64, uint64, bool) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino), true
	}
	return 0, 0, false
}
