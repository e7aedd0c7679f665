package agentbox

import (
	"os"
	"path/filepath"
	"strconv"

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
}

// ProxyAddr is where the agent finds its proxy inside.
const ProxyAddr = sandbox.ProxyAddr

// InitEntry is the hidden command of the gatehouse binary, and of the
// stand-alone sandbox helper, that is the sandbox's first process (Init).
const InitEntry = "__run-init"

// handoffFD is the descriptor the first process inside hands its
// listeners back on.
const handoffFD = 3

// args are bwrap's arguments for s: later mounts cover earlier ones, so
// the home comes before what is shown in it, the workspace before its
// protected paths, and hidden paths come last. A hidden file is covered
// by its stand-in (covers), or by empty, an empty file; info is the run's
// file for RunInfoPath.
func args(s Spec, empty, info string, covers map[string]string) []string {
	// No --new-session: the agent must stay in the terminal's session
	// and process group (see start.go); the terminal filter refuses the
	// ioctls that would let it type into the person's shell.
	a := []string{"--unshare-user", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
		"--die-with-parent", "--hostname", "gatehouse"}
	for _, d := range sandbox.SystemDirs {
		if target, err := os.Readlink(d); err == nil {
			a = append(a, "--symlink", target, d) // merged /usr: /bin -> usr/bin
			continue
		}
		a = append(a, "--ro-bind-try", d, d)
	}
	a = append(a, "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp")
	if s.HomeDir != "" {
		a = append(a, "--bind", s.HomeDir, s.Home)
	} else {
		a = append(a, "--tmpfs", s.Home)
	}
	for _, f := range sandbox.HomeAllowlist {
		p := filepath.Join(s.Home, f)
		a = append(a, "--ro-bind-try", p, p)
	}
	for _, p := range s.ReadOnly {
		a = append(a, "--ro-bind", p, p)
	}
	for _, w := range s.Workspaces {
		a = append(a, "--bind", w, w)
	}
	for _, p := range s.ReadWrite {
		a = append(a, "--bind", p, p)
	}
	for _, p := range append(append([]string(nil), s.Protected...), s.ReadOnlyOver...) {
		a = append(a, "--ro-bind", p, p)
	}
	// A hidden directory is made read-only only after what is shown in it
	// has its mount point.
	var remount []string
	for _, h := range s.Hidden {
		st, err := os.Stat(h)
		switch {
		case err != nil:
			continue // nothing there to see
		case st.IsDir():
			a = append(a, "--tmpfs", h)
			remount = append(remount, "--remount-ro", h)
		case covers[h] != "":
			a = append(a, "--ro-bind", covers[h], h)
		default:
			a = append(a, "--ro-bind", empty, h)
		}
	}
	for _, p := range s.Shown {
		a = append(a, "--ro-bind", p, p)
	}
	a = append(a, remount...)
	for _, p := range s.Programs {
		a = append(a, "--ro-bind", p, p)
	}
	a = append(a, "--ro-bind", info, RunInfoPath, "--ro-bind", s.Init, s.Init, "--chdir", s.Dir, "--", s.Init, InitEntry,
		"--agent-port", strconv.Itoa(s.AgentPort), "--")
	return append(a, s.Argv...)
}
