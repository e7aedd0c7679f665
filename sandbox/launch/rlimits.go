package launch

import (
	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
	"golang.org/x/sys/unix"
)

// NewRequest is the call a waiting helper receives for p: what to exec,
// with env, in p's directory, under p's limits (see Rlimits for nprocBase).
func NewRequest(p *sandbox.Prepared, env []string, nprocBase int) *initproc.Request {
	return &initproc.Request{Path: p.Path, Argv: p.Argv, Env: env, Dir: p.Dir, Rlimits: Rlimits(p.Limits, nprocBase)}
}

// Rlimits maps Limits to rlimits. nprocBase is added to the process
// limit because RLIMIT_NPROC counts every process of the user in the
// current user namespace (0 inside a fresh one, as with bwrap).
func Rlimits(l sandbox.Limits, nprocBase int) []initproc.Rlimit {
	var out []initproc.Rlimit
	add := func(res int, v uint64) {
		out = append(out, initproc.Rlimit{Resource: res, Cur: v, Max: v})
	}
	if l.CPU > 0 {
		secs := uint64((l.CPU + 999_999_999) / 1_000_000_000)
		// Soft limit sends SIGXCPU (reported as a CPU kill); hard kills.
		out = append(out, initproc.Rlimit{Resource: unix.RLIMIT_CPU, Cur: secs, Max: secs + 1})
	}
	if l.MemoryBytes > 0 {
		// RLIMIT_DATA, not RLIMIT_AS: runtimes such as V8 and Go reserve
		// large address ranges they never touch.
		add(unix.RLIMIT_DATA, uint64(l.MemoryBytes))
	}
	if l.Processes > 0 {
		add(unix.RLIMIT_NPROC, uint64(l.Processes+nprocBase))
	}
	if l.FileSizeBytes > 0 {
		add(unix.RLIMIT_FSIZE, uint64(l.FileSizeBytes))
	}
	if l.OpenFiles > 0 {
		add(unix.RLIMIT_NOFILE, uint64(l.OpenFiles))
	}
	add(unix.RLIMIT_CORE, 0)
	return out
}
