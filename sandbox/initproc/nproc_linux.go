package initproc

import (
	"os"

	"golang.org/x/sys/unix"
)

// A run's process limit, as the process that forks its target sets it.
// RLIMIT_NPROC counts every task of the user (in its user namespace),
// this process's threads among them, and the limit is this whole
// process's: the target inherits what this process sets.

// initReserve is room in RLIMIT_NPROC that only the process that forked
// the target uses: the target's hard process limit is this far above
// its soft one, and once the target is forked this process raises its
// own soft limit to it. Room within the run's limit was room a fork bomb
// took first, and the Go runtime, finding none for a thread it needed,
// ended the process and failed the call ("stopped from outside
// Gatehouse"). A run may raise its own soft limit into the reserve; one
// that does can starve this process, whose death still ends the whole
// run.
const initReserve = 16

// targetRlimits are the rlimits the target inherits: the run's, with
// room for threads (this process's, which the count includes), and a
// hard process limit initReserve above the soft one.
func targetRlimits(rs []Rlimit, threads uint64) []Rlimit {
	out := withInitTasks(rs, threads)
	for i := range out {
		if out[i].Resource == unix.RLIMIT_NPROC {
			out[i].Max = addLimit(out[i].Max, initReserve)
		}
	}
	return out
}

// raiseOwnProcessLimit lifts this process's soft RLIMIT_NPROC to its
// hard one, once the target, which keeps the soft limit it inherited,
// is forked.
func raiseOwnProcessLimit() error {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NPROC, &lim); err != nil {
		return err
	}
	lim.Cur = lim.Max
	return unix.Setrlimit(unix.RLIMIT_NPROC, &lim)
}

// withInitTasks raises the run's RLIMIT_NPROC by n, the threads of the
// run's first process: the limit counts every task of the user in the
// user namespace, and those are not the target's to spend.
func withInitTasks(rs []Rlimit, n uint64) []Rlimit {
	out := append([]Rlimit(nil), rs...)
	for i := range out {
		if out[i].Resource == unix.RLIMIT_NPROC {
			out[i].Cur = addLimit(out[i].Cur, n)
			out[i].Max = addLimit(out[i].Max, n)
		}
	}
	return out
}

// addLimit adds n to an rlimit value; unlimited stays unlimited rather
// than wrapping to a handful.
func addLimit(v, n uint64) uint64 {
	if v > unix.RLIM_INFINITY-n {
		return unix.RLIM_INFINITY
	}
	return v + n
}

// ownThreads is how many threads this process has: they count against
// the RLIMIT_NPROC it sets for the target (see withInitTasks).
func ownThreads() uint64 {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return 0
	}
	return uint64(len(ents))
}
