package initproc

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"

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

// applyLandlock restricts the calling thread (and so the target it execs)
// on the filesystem and in scoped IPC. The network is a layer of its own,
// added when the call arrives (applyLandlockNet), so a sandbox built
// ahead of time serves any network mode. It fails closed: a kernel
// without Landlock is an error rather than a silent downgrade.
//
// Paths and scopes are one layer, on the calling thread only: the caller
// holds it with LockOSThread and execs from it, and exec keeps that
// thread's domain. go-landlock's Restrict* restrict every thread of the
// runtime, a stop-the-world signal round per layer, while the sandbox
// is built beside a running call.
func applyLandlock(l Landlock) error {
	if ABI() < 1 {
		return fmt.Errorf("landlock is not supported by this kernel")
	}
	rules := []landlock.Rule{
		landlock.PathAccess(llsys.AccessFSReadDir, l.ListDirs...).IgnoreIfMissing(),
		landlock.RODirs(l.RODirs...).IgnoreIfMissing(),
		landlock.ROFiles(l.ROFiles...).IgnoreIfMissing(),
		landlock.RWDirs(l.RWDirs...).WithRefer().IgnoreIfMissing(),
		landlock.RWFiles(l.RWFiles...).IgnoreIfMissing(),
		landlock.PathAccess(gitDirAccess, l.GitDirs...).WithRefer().IgnoreIfMissing(),
	}
	cfg := landlock.Config{HandledAccessFS: landlock.V7.HandledAccessFS, Scoped: landlock.V7.Scoped}.BestEffort()
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err == nil && fd < 0 {
		err = errors.New("nothing to restrict")
	}
	if err != nil {
		return fmt.Errorf("apply landlock: %w", err)
	}
	defer unix.Close(fd)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	if err := llsys.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("apply landlock: %w", err)
	}
	return nil
}

// applyLandlockNet adds a layer that refuses TCP bind and connect except
// a connect to one of ports (the proxy's, and a whole agent's routes). Layers only narrow, so the
// filesystem layer stays as it was. ABI 4 (Linux 6.7) is required.
//
// It restricts the calling thread only, which is the one that execs (the
// caller holds it with LockOSThread): exec keeps that thread's domain,
// and restricting every thread of the Go runtime, as go-landlock does,
// costs a signal round to each of them on every call.
func applyLandlockNet(ports []int) error {
	if abi := ABI(); abi < 4 {
		return fmt.Errorf("landlock ABI %d cannot restrict the network; need ABI 4 (Linux 6.7)", abi)
	}
	fd, err := llsys.LandlockCreateRuleset(&llsys.RulesetAttr{HandledAccessNet: llsys.AccessNetBindTCP | llsys.AccessNetConnectTCP}, 0)
	if err != nil {
		return fmt.Errorf("create landlock network rules: %w", err)
	}
	defer unix.Close(fd)
	for _, port := range ports {
		if err := llsys.LandlockAddNetPortRule(fd, &llsys.NetPortAttr{AllowedAccess: llsys.AccessNetConnectTCP, Port: uint64(port)}, 0); err != nil {
			return fmt.Errorf("allow port %d: %w", port, err)
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	if err := llsys.LandlockRestrictSelf(fd, 0); err != nil {
		return fmt.Errorf("apply landlock network rules: %w", err)
	}
	return nil
}
