package cli

import "github.com/gatehouse-dev/gatehouse/sandbox/initproc"

// The sandbox backends re-exec this binary as `gatehouse __sandbox-init` to
// confine themselves (rlimits, Landlock, process supervision) before
// executing the agent's program, so the daemon is never restricted.
func init() {
	hiddenEntrypoints[initproc.Entry] = initproc.Main
}
