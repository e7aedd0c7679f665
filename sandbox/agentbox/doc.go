// Package agentbox confines a whole agent for its life (`gatehouse run`):
// the agent process and everything it starts (its MCP servers, language
// servers, their children) run in one bubblewrap sandbox (or, without
// user namespaces, under Landlock) with the person's terminal, while
// each command the agent hands Gatehouse still gets a sandbox of its own
// from the daemon.
//
// One file per mechanism:
//
//   - layout.go: the sandbox's file system, one mount list for every
//     runtime (system read-only, the workspace writable with its
//     protected paths read-only and its secrets hidden, a home of the
//     agent's own, its state writable and its settings read-only).
//   - ns_linux.go: that list as the Root the first process makes itself
//     (initproc.MakeRoot, the new mount API) in namespaces it is started
//     in, a network namespace with nothing in it among them; bwrap.go:
//     the same list as bubblewrap's arguments, where this process may
//     not make a user namespace (Ubuntu's AppArmor restriction).
//   - podman.go, podman_linux.go: the same list as podman's (the
//     container backend): an empty root of the run's own, no image,
//     --network none, no capabilities, the same first process; the
//     container killed and removed by name, and by a watcher if
//     `gatehouse run` dies.
//   - start_linux.go: starting the sandbox with the terminal passed through
//     (same session and process group, so raw mode, window size changes,
//     Ctrl-C and Ctrl-Z reach the agent), and killing the whole tree.
//   - init_linux.go: the first process inside (`__run-init` of the
//     stand-alone helper, or of gatehouse): it makes the Root it is
//     given, listens in the sandbox's network namespace for the proxy
//     and the daemon's agent routes, hands those listeners out with a
//     socket-diagnostics socket of the namespace, installs the socket
//     and terminal filters, gives up its capabilities, and execs the
//     agent; reap_linux.go: where nothing else is PID 1 (namespaces of
//     its own, a container) it starts the agent instead and stays,
//     reaping orphans; guard_linux.go: where the workspace lacks a
//     protected name, it stays as the agent's parent either way,
//     serving the creation guard that refuses to make one;
//     reach_linux.go: the capabilities that reach past the run's walls
//     (root's CAP_SYS_PTRACE and CAP_SYS_ADMIN) are taken first.
//   - landlock_linux.go: the same run where bubblewrap cannot make
//     namespaces: Landlock and seccomp, applied by the sandbox helper's
//     agent stage and inherited for life, its supervisor deciding each
//     connect (the proxy and the daemon's port routed to the run's
//     listeners) and ending the tree.
//   - forward.go, attribute_linux.go: serving those listeners from
//     outside (the sandbox cannot reach the daemon itself), each proxy
//     connection labelled with the process inside that made it (its
//     socket found by address through the diagnostics socket, one
//     lookup, rather than by reading the namespace's TCP table).
package agentbox
