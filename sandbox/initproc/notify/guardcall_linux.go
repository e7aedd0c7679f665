package notify

import (
	"golang.org/x/sys/unix"
)

// creatingCall is one creating call, decoded: its paths and address read
// from the caller's memory once, before the guard checks that the
// caller still waits, and never again. The kernel's own AT_FDCWD and
// flags keep their meaning.
type creatingCall struct {
	kind guardCall
	// dirfd and path name the entry the call makes (for link and rename,
	// the new one; for symlink, the link).
	dirfd int32
	path  string
	// oldDirfd and oldPath name what link links and rename moves.
	oldDirfd int32
	oldPath  string
	// target is a symbolic link's text.
	target string
	flags  int // open's flags, linkat's, renameat2's
	mode   uint32
	dev    int
	sockfd int
	addr   []byte // bind's address
}

// decodeCall reads call kind's arguments a.
func decodeCall(c *caller, kind guardCall, a [6]uint64) (creatingCall, error) {
	call := creatingCall{kind: kind, dirfd: unix.AT_FDCWD, oldDirfd: unix.AT_FDCWD}
	var pathAddr, oldAddr, targetAddr uint64
	switch kind {
	case gcOpen:
		pathAddr, call.flags, call.mode = a[0], int(int32(a[1])), uint32(a[2])
	case gcCreat:
		pathAddr, call.flags, call.mode = a[0], unix.O_CREAT|unix.O_WRONLY|unix.O_TRUNC, uint32(a[1])
	case gcOpenat:
		call.dirfd, pathAddr, call.flags, call.mode = int32(a[0]), a[1], int(int32(a[2])), uint32(a[3])
	case gcMkdir:
		pathAddr, call.mode = a[0], uint32(a[1])
	case gcMkdirat:
		call.dirfd, pathAddr, call.mode = int32(a[0]), a[1], uint32(a[2])
	case gcMknod:
		pathAddr, call.mode, call.dev = a[0], uint32(a[1]), int(uint32(a[2]))
	case gcMknodat:
		call.dirfd, pathAddr, call.mode, call.dev = int32(a[0]), a[1], uint32(a[2]), int(uint32(a[3]))
	case gcSymlink:
		targetAddr, pathAddr = a[0], a[1]
	case gcSymlinkat:
		targetAddr, call.dirfd, pathAddr = a[0], int32(a[1]), a[2]
	case gcLink, gcRename:
		oldAddr, pathAddr = a[0], a[1]
	case gcLinkat, gcRenameat, gcRenameat2:
		call.oldDirfd, oldAddr, call.dirfd, pathAddr = int32(a[0]), a[1], int32(a[2]), a[3]
		if kind != gcRenameat {
			call.flags = int(int32(a[4]))
		}
	case gcBind:
		call.sockfd = int(int32(a[0]))
		n := int(uint32(a[2]))
		if n > unix.SizeofSockaddrAny {
			return call, unix.EINVAL
		}
		if n > 0 {
			b, err := c.bytes(a[1], n)
			if err != nil {
				return call, err
			}
			call.addr = b
		}
		return call, nil
	default:
		return call, unix.ENOSYS
	}
	var err error
	if call.path, err = c.path(pathAddr); err != nil {
		return call, err
	}
	switch kind {
	case gcLink, gcLinkat, gcRename, gcRenameat, gcRenameat2:
		if call.oldPath, err = c.path(oldAddr); err != nil {
			return call, err
		}
	case gcSymlink, gcSymlinkat:
		if call.target, err = c.path(targetAddr); err != nil {
			return call, err
		}
	}
	return call, nil
}
