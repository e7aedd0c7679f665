package sandbox

import (
	"io"
	"time"
)

// NetworkMode says what network a sandboxed process may reach.
type NetworkMode string

const (
	// NetNone gives the process no network at all (the default).
	NetNone NetworkMode = "none"
	// NetHost shares the host's network.
	NetHost NetworkMode = "host"
	// NetProxy gives no network except one unix socket to a proxy.
	NetProxy NetworkMode = "proxy"
)

// Network is the network posture of one run.
type Network struct {
	Mode NetworkMode
	// ProxySocket is the host path of the proxy's unix socket when Mode is
	// NetProxy; it is visible at the same path inside the sandbox.
	ProxySocket string
}

// Limits bound one run. A zero field means "no limit" except OutputBytes
// and Grace, which fall back to their defaults so output never grows
// without bound.
type Limits struct {
	Wall          time.Duration // wall-clock time, then SIGTERM/SIGKILL
	CPU           time.Duration // CPU time (RLIMIT_CPU, whole seconds)
	MemoryBytes   int64         // data segment (RLIMIT_DATA) or container memory
	Processes     int           // processes/threads in the run
	FileSizeBytes int64         // largest file the run may write (RLIMIT_FSIZE)
	OpenFiles     int           // open file descriptors (RLIMIT_NOFILE)
	OutputBytes   int64         // kept per stream (stdout, stderr)
	Grace         time.Duration // between SIGTERM and SIGKILL
}

// Defaults used when a Limits field is zero and a bound is mandatory.
const (
	DefaultOutputBytes = 1 << 20
	DefaultGrace       = 2 * time.Second
)

// DefaultLimits are sensible bounds for an agent's command.
func DefaultLimits() Limits {
	return Limits{
		Wall:          10 * time.Minute,
		MemoryBytes:   8 << 30,
		Processes:     1024,
		FileSizeBytes: 4 << 30,
		OpenFiles:     4096,
		OutputBytes:   DefaultOutputBytes,
		Grace:         DefaultGrace,
	}
}

// OutputCap is the per-stream byte cap in effect.
func (l Limits) OutputCap() int64 {
	if l.OutputBytes <= 0 {
		return DefaultOutputBytes
	}
	return l.OutputBytes
}

// GraceOrDefault is the SIGTERM-to-SIGKILL grace period in effect.
func (l Limits) GraceOrDefault() time.Duration {
	if l.Grace <= 0 {
		return DefaultGrace
	}
	return l.Grace
}

// Spec is one command to run. Argv is never a shell string.
type Spec struct {
	Argv []string
	// Dir is the working directory: absolute, or relative to the first
	// workspace. Empty means the first workspace.
	Dir string
	// Env is the complete environment, KEY=VALUE. Nothing is inherited;
	// HOME and TMPDIR are set by the backend when absent.
	Env []string
	// ReadOnly and ReadWrite are extra host paths to expose. Relative
	// paths are resolved against the first workspace and must stay in it.
	ReadOnly  []string
	ReadWrite []string
	// Hidden paths are never visible inside the sandbox.
	Hidden  []string
	Network Network
	Limits  Limits
	// Stdin is fed to the process; nil means empty input.
	Stdin io.Reader
	// Stdout and Stderr, if set, receive output live as it is captured
	// (only the bytes kept under the cap).
	Stdout io.Writer
	Stderr io.Writer
}

// SessionSpec describes an agent session: the workspaces every run may
// write, and paths (such as the data dir) hidden from every run.
type SessionSpec struct {
	ID         string
	Workspaces []string
	Hidden     []string
	// ReadOnly are host directories every run sees read-only at the same
	// path: the person's toolchains and their module caches.
	ReadOnly []string
	// Cache is a directory every run may write, shown even when it lies
	// in a hidden one (the workspace's build cache in the data dir).
	Cache string
	// GitDirs are set by PrepareSession: the git directories of a
	// workspace that is a linked worktree, which lie outside it and are
	// writable like it (their config and hooks stay protected).
	GitDirs []string
	// Limits bound the whole session where a backend can only apply them
	// once (the container's memory and process limits).
	Limits Limits
}

// KillReason says why a run was killed.
type KillReason string

const (
	KillNone     KillReason = ""
	KillTimeout  KillReason = "timeout"  // Limits.Wall elapsed
	KillCanceled KillReason = "canceled" // the caller's context was cancelled
	KillCPU      KillReason = "cpu"      // RLIMIT_CPU fired
	// KillProtected: the run changed a protected path that its backend
	// could not keep read-only (Landlock's .git/config and hooks).
	KillProtected KillReason = "protected-path"
)

// Violation is something the sandbox saw the process try and refuse.
type Violation struct {
	Kind   string // e.g. "fs-write", "limit"
	Detail string
}

// Result is what came out of one run.
type Result struct {
	Backend string
	// ExitCode is the process's exit status, or -1 when it died by a signal.
	ExitCode int
	// Signal names the signal that ended the process, if known.
	Signal          string
	Stdout          []byte
	Stderr          []byte
	StdoutTruncated bool
	StderrTruncated bool
	Duration        time.Duration
	Killed          bool
	KillReason      KillReason
	Violations      []Violation
}
