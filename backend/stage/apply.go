package stage

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// Conflict is a changed path the person (or another program) also changed
// while the run was staged or its card waited: their version wins unless
// they chose the staged one.
type Conflict struct {
	Path string `json:"path"`
	Op   Op     `json:"op"`
	Why  string `json:"why"`
}

// ApplyRequest lands a change set in the workspace.
type ApplyRequest struct {
	Set Set
	// Upper is the run's upper layer; Workspace the root it stages.
	Upper, Workspace string
	// Since is when the run began: a workspace path whose ctime is later
	// was changed by someone else meanwhile.
	Since time.Time
	// Staged lists conflicting paths the person chose to overwrite with
	// the staged version.
	Staged map[string]bool
	// Journal records progress, so an apply a crash interrupted is
	// finished on the next start (see Recover).
	Journal string
}

// Applied is what Apply did.
type Applied struct {
	Paths     []string   `json:"paths"`
	Conflicts []Conflict `json:"conflicts,omitempty"`
	Skipped   []Conflict `json:"skipped,omitempty"` // not applied, with why (special files)
}

// ErrWorkspaceGone: the workspace is not there any more.
var ErrWorkspaceGone = errors.New("the workspace is gone, so nothing was applied")

// Conflicts lists the paths someone else changed since the run began.
func Conflicts(s Set, workspace string, since time.Time) []Conflict {
	var out []Conflict
	deleted := deletedPaths(s)
	for _, c := range s.Changes {
		if why := conflictOf(c, workspace, since, deleted); why != "" {
			out = append(out, Conflict{Path: c.Path, Op: c.Op, Why: why})
		}
	}
	return out
}

// deletedPaths are the paths the set deletes (a directory that becomes a
// file is deleted, then created).
func deletedPaths(s Set) map[string]bool {
	m := map[string]bool{}
	for _, c := range s.Changes {
		if c.Op == Delete {
			m[c.Path] = true
		}
	}
	return m
}

// conflictOf says why c would overwrite someone else's change, or "".
// A creation where the set first deletes what is there is judged by that
// deletion.
func conflictOf(c Change, workspace string, since time.Time, deleted map[string]bool) string {
	if c.Op == Create && deleted[c.Path] {
		return ""
	}
	fi, err := os.Lstat(filepath.Join(workspace, c.Path))
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		// (ENOTDIR: a parent is a file the set replaces by a directory.)
		if c.Op == Modify {
			return "it was deleted in the workspace meanwhile"
		}
		return ""
	case err != nil:
		return "it cannot be read: " + err.Error()
	case c.Op == Create && c.Kind != Dir:
		return "it was created in the workspace meanwhile"
	case c.Kind == Dir && fi.IsDir():
		return "" // a directory's own change time follows its entries
	case changedSince(fi, since):
		return "it was changed in the workspace meanwhile"
	}
	return ""
}

func changedSince(fi fs.FileInfo, since time.Time) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fi.ModTime().After(since)
	}
	return !time.Unix(st.Ctim.Sec, st.Ctim.Nsec).Before(since)
}

// Apply lands the change set: deletions deepest first, then directories,
// then files and links, each file written beside its target and renamed
// over it (readers see the old file or the new one). Conflicting paths
// keep the workspace's version unless Staged names them. The journal
// records every step, so a crash leaves an apply Recover can finish.
func Apply(ctx context.Context, req ApplyRequest) (Applied, error) {
	if st, err := os.Stat(req.Workspace); err != nil || !st.IsDir() {
		return Applied{}, ErrWorkspaceGone
	}
	var out Applied
	todo := make([]Change, 0, len(req.Set.Changes))
	deleted := deletedPaths(req.Set)
	for _, c := range req.Set.Changes {
		if c.Kind == Special {
			out.Skipped = append(out.Skipped, Conflict{Path: c.Path, Op: c.Op, Why: "special files (devices, fifos, sockets) are never applied"})
			continue
		}
		if why := conflictOf(c, req.Workspace, req.Since, deleted); why != "" {
			out.Conflicts = append(out.Conflicts, Conflict{Path: c.Path, Op: c.Op, Why: why})
			if !req.Staged[c.Path] {
				continue
			}
		}
		todo = append(todo, c)
	}
	order(todo)
	j, err := startJournal(req, todo)
	if err != nil {
		return out, err
	}
	for _, c := range todo {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		if err := applyOne(req.Upper, req.Workspace, c); err != nil {
			return out, fmt.Errorf("apply %s: %w", c.Path, err)
		}
		out.Paths = append(out.Paths, c.Path)
	}
	return out, j.finish(req.Workspace)
}

// order puts deletions first (deepest paths first), then creations and
// changes (shallowest first), so a directory exists before its files and
// is empty before it goes.
func order(cs []Change) {
	sort.SliceStable(cs, func(i, j int) bool {
		a, b := cs[i], cs[j]
		if (a.Op == Delete) != (b.Op == Delete) {
			return a.Op == Delete
		}
		if a.Op == Delete {
			return depth(a.Path) > depth(b.Path) || (depth(a.Path) == depth(b.Path) && a.Path < b.Path)
		}
		return depth(a.Path) < depth(b.Path) || (depth(a.Path) == depth(b.Path) && a.Path < b.Path)
	})
}

func depth(p string) int { return strings.Count(p, string(filepath.Separator)) }

// applyOne makes one change; it can be done twice (Recover redoes the
// step a crash cut short).
func applyOne(upper, workspace string, c Change) error {
	dst := filepath.Join(workspace, c.Path)
	switch {
	case c.Op == Delete && c.Kind == Dir:
		err := os.Remove(dst)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
			// Gone already, or someone put files there meanwhile: keep them.
			return nil
		}
		return err
	case c.Op == Delete:
		if err := os.Remove(dst); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	case c.Kind == Dir:
		if err := os.Mkdir(dst, c.Mode.Perm()); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		return os.Chmod(dst, c.Mode.Perm())
	case c.Kind == Symlink:
		return replaceWith(dst, func(tmp string) error { return os.Symlink(c.Target, tmp) })
	}
	src := filepath.Join(upper, c.Path)
	return replaceWith(dst, func(tmp string) error { return copyFile(src, tmp, c.Mode.Perm()) })
}

// replaceWith makes the new entry under a temporary name in dst's
// directory, then renames it over dst (replacing a directory that was
// there only when it is empty).
func replaceWith(dst string, make func(tmp string) error) error {
	b := make8()
	tmp := filepath.Join(filepath.Dir(dst), ".gatehouse-apply-"+b)
	if err := make(tmp); err != nil {
		os.Remove(tmp)
		return err
	}
	if fi, err := os.Lstat(dst); err == nil && fi.IsDir() {
		if err := os.Remove(dst); err != nil {
			os.Remove(tmp)
			return err
		}
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

func make8() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// copyFile writes src's content to a new file dst, synced.
func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Chmod(perm); err != nil {
		out.Close()
		return err
	}
	// No fsync per file: the journal covers a crash, and one syncfs at the
	// end makes the whole apply durable (20,000 fsyncs would not be cheap).
	return out.Close()
}
