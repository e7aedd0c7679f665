package fsops

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/gatehouse-dev/gatehouse/backend/workspace"
)

// ListOptions bound a listing; zero values take the defaults.
type ListOptions struct {
	Depth      int // 1 lists direct children; at most MaxListDepth
	MaxEntries int // at most MaxListEntries
}

// Entry is one item of a listing.
type Entry struct {
	Path   string `json:"path"` // relative to the listed directory
	Type   string `json:"type"` // file, dir, symlink, fifo, socket, device
	Size   int64  `json:"size,omitempty"`
	Mode   string `json:"mode"`
	Target string `json:"target,omitempty"` // where a symlink points (not followed)
}

// ListResult is a directory listing in path order.
type ListResult struct {
	Path      string  `json:"path"`
	Entries   []Entry `json:"entries"`
	Ignored   int     `json:"ignored,omitempty"` // entries hidden by .gitignore
	Truncated bool    `json:"truncated"`
	Note      string  `json:"note,omitempty"`
}

// ListDir lists the directory p to the given depth, breadth first so a
// truncated listing still shows the upper levels. .gitignore'd entries
// are left out and counted; .git is shown but not entered; symlinks are
// shown with their target and never followed.
func ListDir(ctx context.Context, roots *workspace.Roots, p workspace.Path, opt ListOptions) (ListResult, error) {
	depth := opt.Depth
	if depth <= 0 {
		depth = DefaultListDepth
	}
	maxEntries := opt.MaxEntries
	if maxEntries <= 0 {
		maxEntries = DefaultListEntries
	}
	maxEntries = min(maxEntries, MaxListEntries)
	res := ListResult{Path: agentPath(roots, p), Entries: []Entry{}}
	if depth > MaxListDepth {
		res.Note = fmt.Sprintf("depth %d was lowered to %d; list a subdirectory to go deeper", depth, MaxListDepth)
		depth = MaxListDepth
	}
	if !p.Inside {
		return ListResult{}, errorf(workspace.ErrOutside, "path %s is outside the workspace (%s); list_dir only lists workspace directories", p.Abs, joinRoots(roots))
	}
	fi, err := roots.Lstat(p)
	if err != nil {
		return ListResult{}, err
	}
	if !fi.IsDir() {
		return ListResult{}, errorf(workspace.ErrNotRegular, "%s is %s, not a directory; use read_file for files", res.Path, workspace.Kind(fi.Mode()))
	}
	st, err := walk(ctx, roots, p, walkOptions{maxDepth: depth, showGitDir: true}, func(e walkEntry) (bool, error) {
		if len(res.Entries) == maxEntries {
			res.Truncated = true
			return false, errStop
		}
		ent := Entry{Path: e.rel, Type: workspace.Kind(e.info.Mode()), Mode: modeString(e.info.Mode())}
		if e.info.Mode().IsRegular() {
			ent.Size = e.info.Size()
		}
		if e.info.Mode()&fs.ModeSymlink != 0 {
			ent.Target, _ = e.dir.Readlink(e.path.Name())
		}
		res.Entries = append(res.Entries, ent)
		return true, nil
	})
	if err != nil {
		return ListResult{}, err
	}
	res.Ignored = st.ignored
	slices.SortFunc(res.Entries, func(a, b Entry) int { return strings.Compare(a.Path, b.Path) })
	return res, nil
}
