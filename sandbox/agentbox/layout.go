package agentbox

import (
	"os"
	"path/filepath"

	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// Spec is one confined agent.
type Spec struct {
	// Bwrap is bubblewrap's path; Init the gatehouse binary or the
	// stand-alone sandbox helper, shown read-only at its own path, whose
	// InitEntry starts the agent (on Landlock, its initproc.Entry).
	Bwrap, Init string
	// Landlock confines the agent with Landlock and seccomp instead of
	// bubblewrap, where bubblewrap cannot run (see landlock_linux.go).
	Landlock bool
	// Container, if set, runs the sandbox in a container instead of
	// bubblewrap (see podman_linux.go); Bwrap is then unused.
	Container *Container
	// Argv is the agent's command, Argv[0] an absolute path.
	Argv []string
	Dir  string
	Env  []string
	// Home is the real home's path. HomeDir, if set, is a directory of
	// the agent's own shown there read-write (its state lives on between
	// runs); otherwise Home is a fresh tmpfs.
	Home, HomeDir string
	Workspaces    []string
	// Protected are existing paths inside the workspaces kept read-only.
	Protected []string
	// Uncreatable are the workspaces' protected names that do not exist:
	// the run refuses to create them (see guard_linux.go).
	Uncreatable []string
	// Pin are directories of the workspaces bound onto themselves, so
	// none holding a protected path can be moved away and made anew.
	Pin []string
	// Hidden are covered: files by an empty file, directories by an
	// empty tmpfs.
	Hidden []string
	// ReadOnly are host paths shown read-only (toolchains, the agent's
	// install); ReadWrite are shown read-write (the agent's state);
	// ReadOnlyOver are shown read-only on top of those (its settings,
	// hooks and plugins inside its state directory).
	ReadOnly, ReadWrite, ReadOnlyOver []string
	// Guarded, on Landlock only, are the agent's settings inside a state
	// directory it makes files in directly: Landlock cannot keep them
	// read-only there, so a change stops the run and they are put back
	// (see landlock_linux.go).
	Guarded []string
	// Programs are host files shown read-only at their own paths after
	// every other mount, as Init is, so no writable mount covers them:
	// the gatehouse binary, for the agent's hooks and `gatehouse exec`,
	// when Init is the stand-alone helper.
	Programs []string
	// Shown are host directories inside a hidden one shown read-only
	// (the run's own redacted copies, in the data dir).
	Shown []string
	// AgentPort is the loopback port the agent reaches the daemon's
	// agent routes on inside (the daemon's own port, so the agent's
	// installed MCP entry works unchanged).
	AgentPort int
	// Info is written read-only at RunInfoPath inside.
	Info RunInfo
	// Stdin, Stdout and Stderr are passed to the agent as they are.
	Stdin, Stdout, Stderr *os.File
	// OwnGroup starts the sandbox in a process group of its own, for a
	// caller with no terminal: a signal for the agent then reaches the
	// caller alone, whether sent to its pid or to its group, and the
	// caller passes it on once (Box.Group).
	OwnGroup bool
	// Tmp, if set, is the session's temporary directory on the host,
	// shown read-write as /tmp (TMPDIR on Landlock): the agent's commands,
	// each in a sandbox of its own, see it as theirs. Otherwise /tmp is
	// the run's own.
	Tmp string
	// Publish keeps the first process inside, where it would exec the
	// agent, to make sockets in the sandbox's network namespace for the
	// ports the person published (Box.DialInside). Where it stays anyway
	// (a sandbox it makes itself, a container) it makes them regardless.
	Publish bool
	// HostPorts are ports of the machine's loopback the agent and what
	// it starts reach through Gatehouse (the config's host_ports): the
	// first process listens on them inside, at 127.0.0.1 and ::1, before
	// the agent starts (on Landlock, a route leads each to a listener on
	// the host's loopback); Box.Hosts holds the listeners.
	HostPorts []int
	// Early, if set, is the sandbox Prepare started for this Spec ahead
	// of its layout, which Start completes.
	Early *Early
}

// ProxyAddr is where the agent finds its proxy inside.
const ProxyAddr = sandbox.ProxyAddr

// InitEntry is the hidden command of the gatehouse binary, and of the
// stand-alone sandbox helper, that is the sandbox's first process (Init).
const InitEntry = "__run-init"

// hostname is the sandbox's host name.
const hostname = "gatehouse"

// handoffFD is the descriptor the first process inside hands its
// listeners back on.
const handoffFD = 3

// mountKind is what one entry of the sandbox's file system is.
type mountKind int

const (
	bindROTry mountKind = iota // src shown read-only at dst, if it exists
	bindRO                     // src shown read-only at dst
	bindRW                     // src shown read-write at dst
	tmpfs                      // an empty writable directory
	tmpfsRO                    // an empty directory, read-only once what is shown in it is mounted
	symlink                    // dst is a link to src (merged /usr: /bin -> usr/bin)
	procfs                     // the sandbox's own /proc
	devfs                      // a minimal /dev
)

// mount is one entry of the sandbox's file system.
type mount struct {
	kind     mountKind
	src, dst string
}

// mounts is the sandbox's file system for s, one list for every runtime
// (each spells it its own way): later mounts cover earlier ones, so the
// home comes before what is shown in it, the workspace before its
// protected paths, and hidden paths come last. A hidden file is covered
// by its stand-in (covers), or by empty, an empty file; info is the run's
// file for RunInfoPath.
func mounts(s Spec, empty, info string, covers map[string]string) []mount {
	var m []mount
	add := func(k mountKind, src, dst string) { m = append(m, mount{k, src, dst}) }
	for _, d := range sandbox.SystemDirs {
		if target, err := os.Readlink(d); err == nil {
			add(symlink, target, d)
			continue
		}
		add(bindROTry, d, d)
	}
	add(procfs, "", "/proc")
	add(devfs, "", "/dev")
	if s.Tmp != "" {
		add(bindRW, s.Tmp, "/tmp")
	} else {
		add(tmpfs, "", "/tmp")
	}
	if s.HomeDir != "" {
		add(bindRW, s.HomeDir, s.Home)
	} else {
		add(tmpfs, "", s.Home)
	}
	for _, f := range sandbox.HomeAllowlist {
		p := filepath.Join(s.Home, f)
		add(bindROTry, p, p)
	}
	for _, p := range sandbox.HomeGitExtras(s.Home) {
		add(bindROTry, p, p)
	}
	for _, p := range s.ReadOnly {
		add(bindRO, p, p)
	}
	for _, w := range s.Workspaces {
		add(bindRW, w, w)
	}
	for _, p := range s.Pin {
		add(bindRW, p, p)
	}
	for _, p := range s.ReadWrite {
		add(bindRW, p, p)
	}
	for _, p := range append(append([]string(nil), s.Protected...), s.ReadOnlyOver...) {
		add(bindRO, p, p)
	}
	for _, h := range s.Hidden {
		st, err := os.Stat(h)
		switch {
		case err != nil:
			continue // nothing there to see
		case st.IsDir():
			add(tmpfsRO, "", h)
		case covers[h] != "":
			add(bindRO, covers[h], h)
		default:
			add(bindRO, empty, h)
		}
	}
	for _, p := range s.Shown {
		add(bindRO, p, p)
	}
	for _, p := range s.Programs {
		add(bindRO, p, p)
	}
	add(bindRO, info, RunInfoPath)
	add(bindRO, s.Init, s.Init)
	return m
}
