package initproc

import (
	"fmt"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// ABI returns the kernel's Landlock ABI version, 0 when unsupported.
func ABI() int {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}

// gitDirAccess is what git needs in its own directory: lock files made,
// written and renamed over index, HEAD and packed-refs, and directories
// for rebase and worktree state. No execute, links, devices, fifos or
// sockets.
const gitDirAccess = llsys.AccessFSReadFile | llsys.AccessFSReadDir | llsys.AccessFSWriteFile |
	llsys.AccessFSTruncate | llsys.AccessFSMakeReg | llsys.AccessFSMakeDir |
	llsys.AccessFSRemoveFile | llsys.AccessFSRemoveDir

// applyLandlock restricts this process (and so the target it execs).
// It fails closed: a kernel without Landlock, or without network rules
// when DenyNet is asked, is an error rather than a silent downgrade.
func applyLandlock(l Landlock) error {
	abi := ABI()
	if abi < 1 {
		return fmt.Errorf("landlock is not supported by this kernel")
	}
	if l.DenyNet && abi < 4 {
		return fmt.Errorf("landlock ABI %d cannot deny network; need ABI 4 (Linux 6.7)", abi)
	}
	rules := []landlock.Rule{
		landlock.PathAccess(llsys.AccessFSReadDir, l.ListDirs...).IgnoreIfMissing(),
		landlock.RODirs(l.RODirs...).IgnoreIfMissing(),
		landlock.ROFiles(l.ROFiles...).IgnoreIfMissing(),
		landlock.RWDirs(l.RWDirs...).WithRefer().IgnoreIfMissing(),
		landlock.RWFiles(l.RWFiles...).IgnoreIfMissing(),
		landlock.PathAccess(gitDirAccess, l.GitDirs...).WithRefer().IgnoreIfMissing(),
	}
	cfg := landlock.V7.BestEffort()
	var err error
	if l.DenyNet {
		err = cfg.Restrict(rules...)
	} else {
		if err = cfg.RestrictPaths(rules...); err == nil {
			err = cfg.RestrictScoped()
		}
	}
	if err != nil {
		return fmt.Errorf("apply landlock: %w", err)
	}
	return nil
}
