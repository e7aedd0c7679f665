package agentbox

import "strconv"

// args are bwrap's arguments for s (see mounts for the file system).
func args(s Spec, empty, info string, covers map[string]string) []string {
	// No --new-session: the agent must stay in the terminal's session
	// and process group (see start.go); the terminal filter refuses the
	// ioctls that would let it type into the person's shell.
	a := []string{"--unshare-user", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
		"--die-with-parent", "--hostname", hostname}
	// A hidden directory is made read-only only after what is shown in it
	// has its mount point.
	var remount []string
	for _, m := range mounts(s, empty, info, covers) {
		switch m.kind {
		case symlink:
			a = append(a, "--symlink", m.src, m.dst)
		case bindROTry:
			a = append(a, "--ro-bind-try", m.src, m.dst)
		case bindRO:
			a = append(a, "--ro-bind", m.src, m.dst)
		case bindRW:
			a = append(a, "--bind", m.src, m.dst)
		case tmpfs:
			a = append(a, "--tmpfs", m.dst)
		case tmpfsRO:
			a = append(a, "--tmpfs", m.dst)
			remount = append(remount, "--remount-ro", m.dst)
		case procfs:
			a = append(a, "--proc", m.dst)
		case devfs:
			a = append(a, "--dev", m.dst)
		}
	}
	// Last, the root's own tmpfs, as the first process makes it
	// (initproc.MakeRoot): a write outside every mount fails, not vanishes.
	a = append(append(a, remount...), "--remount-ro", "/")
	a = append(a, "--chdir", s.Dir, "--")
	return append(a, initArgv(s)...)
}

// initArgv is the first process's command line inside: Init's entry,
// which starts the agent, with flags before it.
func initArgv(s Spec, flags ...string) []string {
	a := append([]string{s.Init, InitEntry, "--agent-port", strconv.Itoa(s.AgentPort)}, flags...)
	if s.Publish {
		a = append(a, "--publish")
	}
	for _, p := range s.Uncreatable {
		a = append(a, "--uncreatable", p)
	}
	for _, p := range s.HostPorts {
		a = append(a, "--host-port", strconv.Itoa(p))
	}
	return append(append(a, "--"), s.Argv...)
}
