package seatbelt

import (
	"fmt"
	"strconv"
	"strings"
)

// Agent is a whole agent to confine on macOS (`gatehouse run`), as
// AgentProfile needs it. Seatbelt has no namespaces: the agent keeps the
// host's paths and network stack, so its home is redirected (HOME points
// at HomeDir, and the real home is denied but for what is shown), and
// its network is loopback to two ports that `gatehouse run` serves: the
// proxy and the daemon's agent routes for this run.
type Agent struct {
	Workspaces []string
	// Protected are existing paths inside the workspaces kept read-only;
	// Hidden are denied outright (the workspaces' secrets, the data dir).
	Protected, Hidden []string
	// Home is the real home (denied), HomeDir the agent's own (writable),
	// Tmp its temporary directory.
	Home, HomeDir, Tmp string
	// ReadOnly are shown read-only (toolchains, the agent's install);
	// ReadWrite read-write (its state); ReadOnlyOver read-only on top of
	// those (its settings, hooks and plugins).
	ReadOnly, ReadWrite, ReadOnlyOver []string
	ProxyPort, AgentPort              int
}

// AgentProfile renders the SBPL profile for a whole agent. Later rules
// win, so the real home is denied after the system grants and before
// what is shown in it, and settings and hidden paths come last. Every
// process the agent starts inherits the profile (sandbox-exec applies it
// to the process tree), its MCP servers included.
func AgentProfile(a Agent) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	w("(version 1)")
	w("(deny default)")
	w("(allow process-fork)")
	w("(allow process-exec)")
	w("(allow process-info* (target same-sandbox))")
	w("(allow signal (target same-sandbox))")
	w("(allow sysctl-read)")
	// What an agent's runtime (Node, Bun, Rust) asks of the system: name
	// lookups through the proxy's host aside, time zones, the logger.
	w("(allow mach-lookup (global-name \"com.apple.system.opendirectoryd.libinfo\") (global-name \"com.apple.system.logger\") (global-name \"com.apple.system.notification_center\"))")
	w("(allow ipc-posix-shm-read-data ipc-posix-shm-write-data)")
	w("(allow file-read-metadata)")
	subpaths(w, "allow file-read*", systemRead)
	// The real home: nothing of it but what is shown below.
	w("(deny file-read* file-write* (subpath %s))", quote(a.Home))
	subpaths(w, "allow file-read*", a.ReadOnly)
	// The terminal: the agent's own, read, written and set (raw mode,
	// window size); Seatbelt cannot tell TIOCSTI from the rest.
	w("(allow file-read* file-write* file-ioctl (literal \"/dev/tty\") (regex #\"^/dev/ttys[0-9]+$\"))")
	w("(allow file-write-data (literal \"/dev/null\") (literal \"/dev/zero\"))")
	subpaths(w, "allow file-read* file-write*", a.Workspaces, a.ReadWrite, []string{a.HomeDir, a.Tmp})
	subpaths(w, "deny file-write*", a.Protected, a.ReadOnlyOver)
	subpaths(w, "deny file-read* file-write*", a.Hidden)
	// The agent's own home lives in the (hidden) data dir; later rules win.
	w("(allow file-read* file-write* (subpath %s))", quote(a.HomeDir))
	// Loopback to the run's two ports, TCP only: Seatbelt names only
	// localhost or any host.
	w("(allow network-outbound")
	for _, p := range []int{a.ProxyPort, a.AgentPort} {
		w("  (remote tcp %s)", quote("localhost:"+strconv.Itoa(p)))
	}
	w(")")
	return b.String()
}
