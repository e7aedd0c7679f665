package initproc

import "fmt"

// MountKind is one kind of step in a sandbox's fixed layout.
type MountKind string

const (
	// MountBind binds a host path read-write: nosuid and nodev are
	// added, a read-only host mount stays read-only.
	MountBind MountKind = "bind"
	// MountROBind binds a host path read-only.
	MountROBind MountKind = "ro-bind"
	// MountDevBind binds a host device node (or a tree holding them):
	// nosuid is added, nodev is not.
	MountDevBind MountKind = "dev-bind"
	// MountTmpfs mounts an empty tmpfs over a path (a hidden directory).
	MountTmpfs MountKind = "tmpfs"
	// MountRemountRO makes the mount at a path read-only, and not the
	// mounts below it (the cache inside a hidden directory stays
	// writable).
	MountRemountRO MountKind = "remount-ro"
	// MountHideFile covers a file with an empty read-only one.
	MountHideFile MountKind = "hide-file"
)

// UnmarshalText refuses a kind this helper does not know: a step it
// skipped could leave a path visible that the daemon meant to hide.
func (k *MountKind) UnmarshalText(b []byte) error {
	switch v := MountKind(b); v {
	case MountBind, MountROBind, MountDevBind, MountTmpfs, MountRemountRO, MountHideFile:
		*k = v
		return nil
	}
	return fmt.Errorf("unknown mount kind %q", b)
}

// LayoutMount is one step of the fixed layout, made in order.
type LayoutMount struct {
	Kind MountKind `json:"kind"`
	// Src is a path on the host, for the bind kinds.
	Src string `json:"src,omitempty"`
	// Dst is the path inside the sandbox. A missing mount point is made
	// (directories, and an empty file for a file's bind).
	Dst string `json:"dst"`
	// Try skips a bind whose source does not exist.
	Try bool `json:"try,omitempty"`
}

// HostRoot is where bwrap binds the host's root for the helper to
// clone the layout's sources from. The helper detaches it, and removes
// the directory, before it waits for the call.
const HostRoot = "/.gatehouse-host"
