package sandbox

import (
	"io"
	"net"
	"path/filepath"
	"strconv"
	"time"
)

// NetworkMode says what network a sandboxed process may reach.
type NetworkMode string

const (
	// NetNone gives the process no network at all (the default): no IP
	// socket reaches anything outside the sandbox, on every backend.
	NetNone NetworkMode = "none"
	// NetHost shares the host's network.
	NetHost NetworkMode = "host"
	// NetProxy gives no network except TCP to the run's proxy, whose
	// address the run finds in HTTP_PROXY and the like (see ProxyEnv).
	NetProxy NetworkMode = "proxy"
)

// Network is the network posture of one run.
type Network struct {
	Mode NetworkMode
	// Proxy serves the run's proxy connections when Mode is NetProxy.
	Proxy Proxy
}

// Proxy is the egress proxy of one run.
type Proxy interface {
	// Serve answers the connections the run makes to its proxy address,
	// until ln is closed. Only the run's processes can reach ln: a socket
	// in the run's own network namespace (bwrap, container), or a port on
	// the host's loopback that Landlock lets the run connect to. The
	// backend closes ln when the run is over.
	Serve(ln net.Listener)
	// HostPorts are the ports of the machine's loopback the run may
	// reach (services the person listed: a database, a cache), each
	// served by ServeHost; none by default.
	HostPorts() []int
	// ServeHost answers the connections the run makes to port on its own
	// loopback (or, for a run in the host's namespace, to port through its
	// route), each connected to port on the machine's loopback, until ln
	// is closed; only the run's processes can reach ln, as for Serve.
	ServeHost(port int, ln net.Listener)
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

// WallTimer fires once the wall-clock limit has passed; without a limit
// it is nil and never fires. stop releases its timer.
func (l Limits) WallTimer() (fired <-chan time.Time, stop func()) {
	if l.Wall <= 0 {
		return nil, func() {}
	}
	t := time.NewTimer(l.Wall)
	return t.C, func() { t.Stop() }
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
	// Stage, if set, runs the command staged (see Stage); backends that
	// cannot stage refuse it (CanStage).
	Stage *Stage
	// ReadOnlyWorkspaces says the command only reads (ls, git status):
	// bwrap mounts the workspaces read-only for it, so it needs no
	// placeholders at missing protected names, and a listing shows the
	// workspace as it is. Other backends run it as any command. Not with
	// Stage.
	ReadOnlyWorkspaces bool
	// Stdout and Stderr, if set, receive output live as it is captured
	// (only the bytes kept under the cap).
	Stdout io.Writer
	Stderr io.Writer

	// ExposeSecrets are workspace secrets this run may read, on top of
	// the session's (see SessionSpec.ExposeSecrets): a person's grant
	// for one call or session. The container backend fixes what it hides
	// when its container starts, so there it must be a subset of the
	// session's.
	ExposeSecrets []string
}

// SessionSpec describes an agent session: the workspaces every run may
// write, and paths (such as the data dir) hidden from every run.
type SessionSpec struct {
	ID         string
	Workspaces []string
	Hidden     []string
	// ExposeSecrets are the workspace secrets commands may read (every
	// other file on the secret list is hidden): patterns relative to a
	// workspace root, as the config's [sandbox] expose_secrets takes them
	// (see protect.ParseExposure).
	ExposeSecrets []string
	// ReadOnly are host directories (or single files) every run sees
	// read-only at the same path: the person's toolchains and their module
	// caches.
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
	// StageRoot, when set, is the session's staging directory on the host
	// (in the data dir): a backend that can stage runs (see Spec.Stage)
	// makes it reachable to its helper.
	StageRoot string
	// Tmp, when set, is the session's temporary directory on the host:
	// every run of the session sees it as /tmp (under Landlock, which
	// keeps /tmp from runs, as TMPDIR), so what one command saves there
	// the next finds. Without it each run gets an empty one of its own.
	Tmp string
}

// Stage asks for a staged run: every workspace is an overlay whose lower
// layer is the workspace itself and whose upper layer takes every write,
// so the workspace is not touched; the caller reads the change set from
// the upper layers afterwards and applies it or not.
type Stage struct {
	// Dir is the run's directory inside SessionSpec.StageRoot. The
	// workspace i (in SessionSpec order) stages into Dir/i/upper, with
	// Dir/i/work as the overlay's work directory; the caller makes them.
	Dir string
	// PassThrough are directories inside a workspace written directly
	// (build outputs and installs, such as node_modules): they exist now,
	// are not staged, and are not checkpointed.
	PassThrough []string
}

// StageUpper is where workspace i of a staged run keeps its writes, under
// the stage root.
func StageUpper(root, dir string, i int) string {
	return filepath.Join(root, dir, strconv.Itoa(i), "upper")
}

// StageWork is the overlay work directory beside StageUpper.
func StageWork(root, dir string, i int) string {
	return filepath.Join(root, dir, strconv.Itoa(i), "work")
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
	// StdoutBytes and StderrBytes are what the command wrote, kept or not.
	StdoutBytes int64
	StderrBytes int64
	Duration    time.Duration
	Killed      bool
	KillReason  KillReason
	Violations  []Violation
	// Left names the programs the command left running when it exited
	// (started in the background); the sandbox ended them with it.
	Left []string
}

// Written is how many bytes the command wrote to stdout and stderr: the
// counts of a backend that made them, else what was kept.
func (r Result) Written() (stdout, stderr int64) {
	stdout, stderr = r.StdoutBytes, r.StderrBytes
	if stdout == 0 {
		stdout = int64(len(r.Stdout))
	}
	if stderr == 0 {
		stderr = int64(len(r.Stderr))
	}
	return stdout, stderr
}
