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

// applyLandlock restricts this process (and so the target it execs) on
// the filesystem and in scoped IPC. The network is a layer of its own,
// added when the call arrives (applyLandlockNet), so a sandbox built
// ahead of time serves any network mode. It fails closed: a kernel
// without Landlock is an error rather than a silent downgrade.
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
	}
	cfg := landlock.V7.BestEffort()
	err := cfg.RestrictPaths(rules...)
	if err == nil {
		err = cfg.RestrictScoped()
	}
	if err != nil {
		return fmt.Errorf("apply landlock: %w", err)
	}
	return nil
}

// applyLandlockNet adds a layer that refuses TCP bind and connect except
// a connect to proxyPort (when non-zero). Layers only narrow, so the
// filesystem layer stays as it was. ABI 4 (Linux 6.7) is required.
func applyLandlockNet(proxyPort int) error {
	if abi := ABI(); abi < 4 {
		return fmt.Errorf("landlock ABI %d cannot restrict the network; need ABI 4 (Linux 6.7)", abi)
	}
	var rules []landlock.Rule
	if proxyPort > 0 {
		rules = append(rules, landlock.ConnectTCP(uint16(proxyPort)))
	}
	if err := landlock.V4.RestrictNet(rules...); err != nil {
		return fmt.Errorf("apply landlock network rules: %w", err)
	}
	return nil
}
