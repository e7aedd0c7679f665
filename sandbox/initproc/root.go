package initproc

import "fmt"

// A whole root, made by a sandbox's first process in namespaces of its
// own (a confined agent's, `gatehouse run`): where bwrap would make each
// mount with mount(2) and read the whole mount table again after each,
// the first process makes the same list with the new mount API from the
// host's root, then detaches that root (EnterRoot, then MakeRoot).

// RootKind is one kind of step in a Root.
type RootKind string

const (
	// RootBind, RootROBind and RootDevBind bind a host path (read-write,
	// read-only, with its devices), as the layout's kinds of the same
	// names do. The destination is followed if it is a link inside the
	// sandbox, as bwrap follows it.
	RootBind    = RootKind(MountBind)
	RootROBind  = RootKind(MountROBind)
	RootDevBind = RootKind(MountDevBind)
	// RootTmpfs mounts an empty tmpfs (mode 0755, nosuid, nodev).
	RootTmpfs = RootKind(MountTmpfs)
	// RootRemountRO makes the mount at Dst, and every mount below it,
	// read-only (bwrap's --remount-ro).
	RootRemountRO RootKind = "remount-ro"
	// RootSymlink makes Dst a link to Src.
	RootSymlink RootKind = "symlink"
	// RootProc mounts the sandbox's own procfs at Dst, its kernel
	// tunables and triggers read-only (bwrap's --proc).
	RootProc RootKind = "proc"
	// RootDev makes a minimal /dev at Dst (bwrap's --dev): a tmpfs with
	// the host's null, zero, full, random, urandom and tty, the standard
	// links, an empty shm and a devpts of the sandbox's own.
	RootDev RootKind = "dev"
	// RootPinLink mounts the symbolic link at Dst on itself (not
	// followed), so it cannot be removed, renamed or replaced: a
	// protected name that is a link, kept as a command's first process
	// keeps it (protectPath).
	RootPinLink RootKind = "pin-link"
)

// UnmarshalText refuses a kind this helper does not know: a step it
// skipped could leave a path visible that was meant to be hidden.
func (k *RootKind) UnmarshalText(b []byte) error {
	switch v := RootKind(b); v {
	case RootBind, RootROBind, RootDevBind, RootTmpfs, RootRemountRO, RootSymlink, RootProc, RootDev, RootPinLink:
		*k = v
		return nil
	}
	return fmt.Errorf("unknown root step kind %q", b)
}

// RootStep is one step of a Root, made in order: later steps cover
// earlier ones.
type RootStep struct {
	Kind RootKind `json:"kind"`
	// Src is a path on the host for the binds, the target for a link.
	Src string `json:"src,omitempty"`
	// Dst is the path inside the sandbox. A missing mount point is made
	// (directories, and an empty file for a file's bind).
	Dst string `json:"dst"`
	// Try skips a bind whose source does not exist.
	Try bool `json:"try,omitempty"`
}

// Root is a sandbox's whole file system and what else its first process
// sets up in its new namespaces before it starts the command.
type Root struct {
	Steps []RootStep `json:"steps"`
	// Dir is the working directory inside, entered once all is mounted.
	Dir string `json:"dir"`
	// Argv and Env are the command the first process starts, and its
	// environment: a first process started before they were known
	// (ahead of the daemon's answer) learns them here.
	Argv []string `json:"argv"`
	Env  []string `json:"env"`
	// Console, if set, is the host's terminal device shown at
	// /dev/console, as bwrap's --dev shows the terminal on stdout.
	Console string `json:"console,omitempty"`
	// Uncreatable are the workspaces' protected names that do not exist,
	// which the first process's creation guard keeps from being made (a
	// first process started ahead of the daemon's answer learns them
	// here, as bubblewrap's gets them as --uncreatable).
	Uncreatable []string `json:"uncreatable,omitempty"`
	// HostPorts are the ports the first process listens on inside for
	// services of the machine's loopback (agentbox's Spec.HostPorts): a
	// first process started ahead of the daemon's answer learns them here.
	HostPorts []int `json:"host_ports,omitempty"`
}

// DecodeRoot reads a Root, refusing what it does not know.
func DecodeRoot(b []byte) (Root, error) {
	var r Root
	if err := decodeStrict(b, &r); err != nil {
		return r, fmt.Errorf("decode the sandbox's root: %w", err)
	}
	if r.Dir == "" || len(r.Argv) == 0 {
		return r, fmt.Errorf("the sandbox's root has no working directory or no command")
	}
	return r, nil
}
