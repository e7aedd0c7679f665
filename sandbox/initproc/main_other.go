//go:build !linux

package initproc

import (
	"fmt"
	"os"
	"syscall"
)

// Main outside Linux only sets rlimits and execs: there is no Landlock
// and supervision is done by the caller's process group.
func Main(args []string) int {
	cfg, ok := mainConfig(args)
	if !ok {
		return ExitSetupFailed
	}
	if cfg.Landlock != nil {
		fmt.Fprintln(os.Stderr, "gatehouse sandbox: Landlock exists only on Linux.")
		return ExitSetupFailed
	}
	for _, r := range cfg.Rlimits {
		lim := syscall.Rlimit{Cur: r.Cur, Max: r.Max}
		if err := syscall.Setrlimit(r.Resource, &lim); err != nil {
			fmt.Fprintf(os.Stderr, "gatehouse sandbox: set rlimit %d: %v\n", r.Resource, err)
			return ExitSetupFailed
		}
	}
	err := syscall.Exec(cfg.Path, cfg.Argv, os.Environ())
	fmt.Fprintf(os.Stderr, "gatehouse sandbox: exec %s: %v\n", cfg.Path, err)
	return ExitSetupFailed
}

// ABI is 0: Landlock exists only on Linux.
func ABI() int { return 0 }
