package effect

import (
	"io/fs"
	"sort"
)

// Op is what happens to one path.
type Op string

const (
	Create Op = "create"
	Modify Op = "modify"
	Delete Op = "delete"
)

// Kind is what a path is (after the change; before it, for a delete).
type Kind string

const (
	File    Kind = "file"
	Dir     Kind = "dir"
	Symlink Kind = "symlink"
	// Special files (devices, fifos, sockets) are listed but never applied.
	Special Kind = "special"
)

// Change is one path the run changed, relative to the workspace root.
type Change struct {
	Path string `json:"path"`
	Op   Op     `json:"op"`
	Kind Kind   `json:"kind"`
	// Mode is the path's mode after the change; OldMode before it (when
	// it existed), so mode changes show.
	Mode    fs.FileMode `json:"mode,omitempty"`
	OldMode fs.FileMode `json:"old_mode,omitempty"`
	Size    int64       `json:"size,omitempty"`
	// Target is a symlink's target.
	Target string `json:"target,omitempty"`
	// Emptied: a file that existed with content and is now empty.
	Emptied bool `json:"emptied,omitempty"`
	// ModeOnly: only the mode changed (a copy-up for chmod).
	ModeOnly bool `json:"mode_only,omitempty"`
	// Moved, in an apply's steps, stands for a directory created whole
	// and everything in it: it is renamed into place in one step.
	Moved bool `json:"moved,omitempty"`
}

// Set is a run's change set.
type Set struct {
	Changes []Change `json:"changes"`
	// Bytes is the size of what the upper layer holds.
	Bytes int64 `json:"bytes"`
}

// Count tallies a set's operations on files (directories aside).
func (s Set) Count(op Op) int {
	n := 0
	for _, c := range s.Changes {
		if c.Op == op && c.Kind != Dir {
			n++
		}
	}
	return n
}

func (s *Set) sort() {
	sort.Slice(s.Changes, func(i, j int) bool { return s.Changes[i].Path < s.Changes[j].Path })
}
