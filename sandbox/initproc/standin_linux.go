package initproc

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// standInFill bounds how much of a stand-in is written: a larger secret
// gets a sparse stand-in (zeros), a smaller one '#' lines a dotenv
// loader reads as comments.
const standInFill = 1 << 20

// standIns are the hidden secret files' stand-ins: each as long as the
// secret it covers, with its mode and modification time, so git (told
// core.checkStat=minimal by the run's environment, see
// sandbox.GitCoherentEnv) finds a tracked secret unchanged. An empty
// stand-in made git see every tracked .env as emptied: `commit -am`
// recorded it empty and `reset --hard` failed on the mount point.
// They live on a detached, read-only tmpfs of their own, made per run
// (the secrets' sizes and times are known only then).
type standIns struct {
	fd    int
	names map[string]string
}

// prepare makes a stand-in for each regular, non-empty file of paths
// (links and missing files keep the empty cover).
func (s *standIns) prepare(paths []string) error {
	type src struct {
		path string
		st   unix.Stat_t
	}
	var srcs []src
	fill := int64(0)
	for _, p := range paths {
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size == 0 {
			continue
		}
		srcs = append(srcs, src{p, st})
		if st.Size <= standInFill {
			fill += st.Size
		}
	}
	if len(srcs) == 0 {
		return nil
	}
	fs, err := unix.Fsopen("tmpfs", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return fmt.Errorf("make the workspace secrets' stand-ins: %w", err)
	}
	defer unix.Close(fs)
	if err := unix.FsconfigSetString(fs, "size", strconv.FormatInt(fill+int64(len(srcs))*4096+4096, 10)); err != nil {
		return fmt.Errorf("make the workspace secrets' stand-ins: %w", err)
	}
	if err := unix.FsconfigCreate(fs); err != nil {
		return fmt.Errorf("make the workspace secrets' stand-ins: %w", err)
	}
	mnt, err := unix.Fsmount(fs, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
	if err != nil {
		return fmt.Errorf("make the workspace secrets' stand-ins: %w", err)
	}
	s.fd, s.names = mnt, map[string]string{}
	for i, x := range srcs {
		name := strconv.Itoa(i)
		if err := writeStandIn(mnt, name, x.st); err != nil {
			return fmt.Errorf("make a stand-in for %s: %w", x.path, err)
		}
		s.names[x.path] = name
	}
	// Clones copy the read-only flag.
	if err := unix.MountSetattr(mnt, "", unix.AT_EMPTY_PATH, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
		return fmt.Errorf("make the workspace secrets' stand-ins: %w", err)
	}
	return nil
}

// writeStandIn creates name under dir with st's size, permission bits
// and times, and none of its content.
func writeStandIn(dir int, name string, st unix.Stat_t) error {
	fd, err := unix.Openat(dir, name, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	if st.Size <= standInFill {
		b := make([]byte, st.Size)
		for i := range b {
			b[i] = '#'
		}
		b[len(b)-1] = '\n'
		if _, err := f.Write(b); err != nil {
			return err
		}
	} else if err := f.Truncate(st.Size); err != nil {
		return err
	}
	if err := f.Chmod(os.FileMode(st.Mode & 0o777)); err != nil {
		return err
	}
	ts := []unix.Timespec{st.Atim, st.Mtim}
	return unix.UtimesNanoAt(dir, name, ts, 0)
}

// cover mounts p's stand-in over p, reporting false when p has none.
func (s *standIns) cover(p string) (bool, error) {
	name, ok := s.names[p]
	if !ok {
		return false, nil
	}
	fd, err := unix.OpenTree(s.fd, name, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
	if err != nil {
		return true, fmt.Errorf("hide %s: %w", p, err)
	}
	defer unix.Close(fd)
	if err := unix.MoveMount(fd, "", unix.AT_FDCWD, p, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return true, fmt.Errorf("hide %s: %w", p, err)
	}
	return true, nil
}

func (s *standIns) close() {
	if s.names != nil {
		unix.Close(s.fd)
		s.names = nil
	}
}
