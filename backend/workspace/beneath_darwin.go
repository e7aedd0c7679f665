package workspace

import "golang.org/x/sys/unix"

// Darwin has no O_PATH; a read-only directory descriptor does the job.
const dirPathFlags = unix.O_RDONLY | unix.O_DIRECTORY

// openBeneath opens rel below dirfd one component at a time with
// O_NOFOLLOW, so no symlink is ever followed and ".." never appears.
func openBeneath(dirfd int, rel string, flags int, mode uint32) (int, error) {
	if err := checkRel(rel); err != nil {
		return -1, err
	}
	return walkOpen(dirfd, rel, flags, mode)
}

// Darwin has no openat2; these keep the tests' mode switch portable.
var forceWalk bool

func haveOpenat2() bool { return false }
