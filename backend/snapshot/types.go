package snapshot

import (
	"fmt"
	"time"
)

// Phase says whether a checkpoint was taken before or after a tool call.
type Phase string

const (
	Pre  Phase = "pre"
	Post Phase = "post"
)

// Request asks for a checkpoint of some workspace roots.
type Request struct {
	Session string
	CallID  string
	Phase   Phase
	// Roots are absolute workspace directories.
	Roots []string
	// Paths limits the checkpoint to these absolute paths inside Roots (what
	// write_file/edit_file touch). Nil means the whole roots. The resulting
	// tree is the root's previous tree with just these paths replaced.
	Paths []string
}

// RootTree is one root's state in a checkpoint.
type RootTree struct {
	Root string `json:"root"`
	Tree Hash   `json:"tree"`
	// Scoped lists the root-relative paths re-read, when path-scoped.
	Scoped []string `json:"scoped,omitempty"`
}

// Stats describes what a checkpoint saw and wrote.
type Stats struct {
	Files       int64         `json:"files"`
	Dirs        int64         `json:"dirs"`
	Symlinks    int64         `json:"symlinks"`
	Bytes       int64         `json:"bytes"`        // total size of files seen
	Hashed      int64         `json:"hashed"`       // files actually read
	HashedBytes int64         `json:"hashed_bytes"` // bytes actually read
	NewObjects  int64         `json:"new_objects"`
	NewBytes    int64         `json:"new_bytes"` // stored size of new objects
	Duration    time.Duration `json:"duration"`
}

// NotRestorable is a file a checkpoint saw but could not keep. Rollback
// leaves such files alone.
type NotRestorable struct {
	Root   string `json:"root"`
	Path   string `json:"path"` // root-relative, slash-separated
	Size   int64  `json:"size"`
	Kind   string `json:"kind"` // too_large | unreadable | special
	Detail string `json:"detail,omitempty"`
}

// Err returns the typed error for this file (ErrTooLarge, ErrUnreadable or
// ErrSpecialFile inside a *PathError).
func (n NotRestorable) Err() error {
	var base error
	switch n.Kind {
	case "too_large":
		base = ErrTooLarge
	case "unreadable":
		base = ErrUnreadable
	default:
		base = ErrSpecialFile
	}
	if n.Detail != "" {
		base = fmt.Errorf("%w (%s)", base, n.Detail)
	}
	return &PathError{Path: n.Root + "/" + n.Path, Err: base}
}

func reasonName(r Reason) string {
	switch r {
	case ReasonTooLarge:
		return "too_large"
	case ReasonUnreadable:
		return "unreadable"
	}
	return "special"
}

// Checkpoint is a durable record of the workspace at one moment.
type Checkpoint struct {
	ID            string          `json:"id"`
	Session       string          `json:"session"`
	CallID        string          `json:"call_id"`
	Phase         Phase           `json:"phase"`
	Time          time.Time       `json:"time"`
	Roots         []RootTree      `json:"roots"`
	Excludes      []string        `json:"excludes,omitempty"`
	Stats         Stats           `json:"stats"`
	NotRestorable []NotRestorable `json:"not_restorable,omitempty"`
}

func (c *Checkpoint) tree(root string) (Hash, bool) {
	for _, r := range c.Roots {
		if r.Root == root {
			return r.Tree, true
		}
	}
	return Hash{}, false
}

// ChangeKind classifies one path's change between two trees.
type ChangeKind string

const (
	Added    ChangeKind = "added"
	Deleted  ChangeKind = "deleted"
	Modified ChangeKind = "modified"
	// ModeChanged: same content, different permission bits.
	ModeChanged ChangeKind = "mode"
	// TypeChanged: e.g. a file replaced by a symlink.
	TypeChanged ChangeKind = "type"
)

// Change is one path that differs between two checkpoints.
type Change struct {
	Root    string     `json:"root"`
	Path    string     `json:"path"`
	Kind    ChangeKind `json:"kind"`
	OldKind Kind       `json:"old_kind,omitempty"`
	NewKind Kind       `json:"new_kind,omitempty"`
	OldPerm uint32     `json:"old_perm,omitempty"`
	NewPerm uint32     `json:"new_perm,omitempty"`
	OldSize int64      `json:"old_size,omitempty"`
	NewSize int64      `json:"new_size,omitempty"`
	Binary  bool       `json:"binary,omitempty"`
	// Diff is a unified diff for text files (empty for binary or huge ones).
	Diff string `json:"diff,omitempty"`
}
