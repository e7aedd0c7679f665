package initproc

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// stageMounts turns each workspace into an overlay whose lower layer is
// the workspace itself (or its uncovered bind, StageMount.Lower) and whose
// upper layer takes every write, then puts the pass-through directories
// of the real workspace back on top. The later mounts (protected paths,
// hidden secrets, and the covers over the stage root and the lower
// binds) land on the overlays, so they hold in a staged run too.
func stageMounts(req Request) error {
	if len(req.Stage) == 0 {
		return nil
	}
	// Taken before the overlays hide the real directories.
	trees := make([]int, 0, len(req.PassThrough))
	defer func() {
		for _, fd := range trees {
			unix.Close(fd)
		}
	}()
	for _, p := range req.PassThrough {
		fd, err := unix.OpenTree(unix.AT_FDCWD, p, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
		if err != nil {
			return fmt.Errorf("keep %s in place: %w", p, err)
		}
		trees = append(trees, fd)
	}
	for _, m := range req.Stage {
		if err := overlay(m); err != nil {
			return fmt.Errorf("%w [%s]: stage %s: %v", errStage, req.StageNonce, m.Target, err)
		}
	}
	for i, p := range req.PassThrough {
		if err := unix.MoveMount(trees[i], "", unix.AT_FDCWD, p, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return fmt.Errorf("keep %s in place: %w", p, err)
		}
	}
	return nil
}

// errStage marks a failure to stage, so the caller can run unstaged.
var errStage = errors.New("staging failed")

// overlay mounts one overlay with the new mount API: each layer is its
// own parameter, so no path needs escaping in an option string.
func overlay(m StageMount) error {
	fs, err := unix.Fsopen("overlay", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return err
	}
	defer unix.Close(fs)
	lower := m.Target
	if m.Lower != "" {
		lower = m.Lower
	}
	for _, kv := range [][2]string{{"lowerdir+", lower}, {"upperdir", m.Upper}, {"workdir", m.Work}} {
		if err := unix.FsconfigSetString(fs, kv[0], kv[1]); err != nil {
			return fmt.Errorf("%s: %w", kv[0], err)
		}
	}
	// The run's own user namespace mounts it: trusted.* xattrs are not
	// its to set, user.* are.
	if err := unix.FsconfigSetFlag(fs, "userxattr"); err != nil {
		return fmt.Errorf("userxattr: %w", err)
	}
	// The daemon reads the layers once the run is over and makes what it
	// applies durable itself, so the run's own fsyncs need not reach the
	// disk: with this, git's or a package manager's fsync of each file
	// costs a sixth as much, and unmounting syncs nothing. Every kernel
	// that lets a user namespace mount an overlay (5.11) has it.
	_ = unix.FsconfigSetFlag(fs, "volatile")
	if err := unix.FsconfigCreate(fs); err != nil {
		return err
	}
	mnt, err := unix.Fsmount(fs, unix.FSMOUNT_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(mnt)
	return unix.MoveMount(mnt, "", unix.AT_FDCWD, m.Target, unix.MOVE_MOUNT_F_EMPTY_PATH)
}
