package effect

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

	"golang.org/x/sys/unix"
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
	// Step, if set, is called after each step with how many are done of
	// how many (progress on a long apply).
	Step func(done, total int)
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
	todo = moveFreshDirs(todo, req.Upper, req.Workspace)
	order(todo)
	j, err := startJournal(req, todo)
	if err != nil {
		return out, err
	}
	parents := parentCheck{root: req.Workspace, ok: map[string]bool{}}
	for i, c := range todo {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		if why := parents.why(c.Path); why != "" {
			// Someone put a link in the way meanwhile: writing through it
			// could land outside the workspace.
			out.Conflicts = append(out.Conflicts, Conflict{Path: c.Path, Op: c.Op, Why: why})
			continue
		}
		if err := applyOne(req.Upper, req.Workspace, c); err != nil {
			return out, fmt.Errorf("apply %s: %w", c.Path, err)
		}
		out.Paths = append(out.Paths, c.Path)
		if req.Step != nil {
			req.Step(i+1, len(todo))
		}
	}
	return out, j.finish(req.Workspace)
}

// moveFreshDirs replaces each directory the run created whole (nothing
// there in the workspace, nothing of it skipped) by one step that renames
// it out of the upper layer: a 20,000-file install lands in one rename,
// not 20,000 copies. The upper layer is thrown away afterwards anyway.
func moveFreshDirs(todo []Change, upper, workspace string) []Change {
	keep := map[string]bool{}
	for _, c := range todo {
		keep[c.Path] = true
	}
	deleted := map[string]bool{}
	for _, c := range todo {
		if c.Op == Delete {
			deleted[c.Path] = true
		}
	}
	var fresh []string
	for _, c := range todo {
		if c.Op != Create || c.Kind != Dir || deleted[c.Path] {
			continue
		}
		if _, err := os.Lstat(filepath.Join(workspace, c.Path)); err == nil {
			continue
		}
		if !sameDevice(filepath.Join(upper, c.Path), filepath.Dir(filepath.Join(workspace, c.Path))) {
			continue
		}
		fresh = append(fresh, c.Path)
	}
	if len(fresh) == 0 {
		return todo
	}
	sort.Strings(fresh)
	var tops []string
	for _, f := range fresh {
		if n := len(tops); n > 0 && strings.HasPrefix(f, tops[n-1]+string(filepath.Separator)) {
			continue
		}
		tops = append(tops, f)
	}
	under := func(p string) string {
		for _, t := range tops {
			if p == t || strings.HasPrefix(p, t+string(filepath.Separator)) {
				return t
			}
		}
		return ""
	}
	// A directory whose upper side holds something the set leaves out
	// (a special file, a conflict the person keeps) is not moved whole.
	whole := map[string]bool{}
	for _, t := range tops {
		whole[t] = true
	}
	for _, t := range tops {
		_ = filepath.WalkDir(filepath.Join(upper, t), func(p string, d fs.DirEntry, err error) error {
			rel, _ := filepath.Rel(upper, p)
			if err != nil || !keep[rel] {
				whole[t] = false
				return filepath.SkipAll
			}
			return nil
		})
	}
	out := todo[:0:0]
	for _, c := range todo {
		t := under(c.Path)
		switch {
		case t == "" || !whole[t]:
			out = append(out, c)
		case c.Path == t:
			c.Moved = true
			out = append(out, c)
		}
	}
	return out
}

func sameDevice(a, b string) bool {
	var sa, sb unix.Stat_t
	if unix.Lstat(a, &sa) != nil || unix.Lstat(b, &sb) != nil {
		return false
	}
	return sa.Dev == sb.Dev
}

// parentCheck makes sure no directory between the workspace root and a
// path is a link, remembering the directories already checked.
type parentCheck struct {
	root string
	ok   map[string]bool
}

func (p parentCheck) why(rel string) string {
	dir := filepath.Dir(rel)
	var chain []string
	for d := dir; d != "." && d != string(filepath.Separator) && !p.ok[d]; d = filepath.Dir(d) {
		chain = append(chain, d)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		fi, err := os.Lstat(filepath.Join(p.root, chain[i]))
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return "a directory on its path is now a link, which could lead outside the workspace"
		}
		if err == nil && fi.IsDir() {
			p.ok[chain[i]] = true
		}
	}
	return ""
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
	case c.Moved:
		return moveDir(filepath.Join(upper, c.Path), dst)
	case c.Kind == Dir:
		if err := os.Mkdir(dst, c.Mode.Perm()); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		return os.Chmod(dst, c.Mode.Perm())
	case c.Kind == Symlink:
		return replaceWith(dst, func(tmp string) error { return os.Symlink(c.Target, tmp) })
	}
	src := filepath.Join(upper, c.Path)
	return replaceWith(dst, func(tmp string) error { return linkOrCopy(src, tmp, c.Mode.Perm()) })
}

// moveDir renames a directory the run created whole into place, with
// overlayfs's own marks taken off. Done twice, the second finds it moved.
func moveDir(src, dst string) error {
	if _, err := os.Lstat(src); errors.Is(err, fs.ErrNotExist) {
		if _, err := os.Lstat(dst); err == nil {
			return nil // moved before a crash
		}
	}
	_ = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			stripOverlayXattrs(p)
		}
		return nil
	})
	return os.Rename(src, dst)
}

// linkOrCopy makes dst the staged file src: a hard link when both are on
// one filesystem (no bytes copied; Run.Unshare takes the upper layer's
// name off before the answer), a copy otherwise.
func linkOrCopy(src, dst string, perm fs.FileMode) error {
	if err := os.Link(src, dst); err == nil {
		stripOverlayXattrs(dst)
		return os.Chmod(dst, perm)
	}
	return copyFile(src, dst, perm)
}

// stripOverlayXattrs removes overlayfs's user.overlay.* marks, which mean
// something only inside an upper layer.
func stripOverlayXattrs(p string) {
	buf := make([]byte, 1024)
	n, err := unix.Llistxattr(p, buf)
	if err != nil || n <= 0 {
		return
	}
	for _, name := range strings.Split(string(buf[:n]), "\x00") {
		if strings.HasPrefix(name, "user.overlay.") {
			_ = unix.Lremovexattr(p, name)
		}
	}
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
	// Renaming a link over another link to the same file (a step done
	// again after a crash) succeeds and leaves both names.
	_ = os.Remove(tmp)
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
