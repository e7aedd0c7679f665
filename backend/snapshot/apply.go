package snapshot

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Result reports a finished rollback.
type Result struct {
	PlanID string `json:"plan_id"`
	// Before is the checkpoint of the state the rollback replaced, so the
	// rollback itself can be undone (UndoCall with CallID).
	Before    string `json:"before"`
	After     string `json:"after"`
	CallID    string `json:"call_id"`
	Restored  int    `json:"restored"`
	Deleted   int    `json:"deleted"`
	Recreated int    `json:"recreated"`
	// Skipped are paths left as they were (e.g. a directory still holding
	// files the rollback keeps).
	Skipped []string `json:"skipped,omitempty"`
}

// Apply carries out a plan: it checkpoints the paths it will touch (so the
// rollback is undoable), checks nothing changed since the preview, journals
// the steps, then writes each file atomically.
func (s *Store) Apply(ctx context.Context, p *Plan) (Result, error) {
	res := Result{PlanID: p.ID, CallID: "rollback:" + p.ID}
	if s.closed.Load() {
		return res, ErrClosed
	}
	if err := s.validatePlan(p); err != nil {
		return res, err
	}
	s.gcMu.RLock()
	defer s.gcMu.RUnlock()
	if s.closed.Load() {
		return res, ErrClosed
	}
	if len(p.Ops) == 0 {
		return res, nil
	}
	scopes := opScopes(p.Ops)
	before, err := s.checkpointLocked(ctx, p.Session, res.CallID, Pre, scopes)
	if err != nil {
		return res, fmt.Errorf("checkpoint before rollback: %w", err)
	}
	res.Before = before.ID
	for _, op := range p.Ops {
		tree, _ := before.tree(op.Root)
		now, err := s.entryAt(tree, op.Path)
		if err != nil {
			return res, err
		}
		if !eqEntry(now, op.Expect) {
			return res, fmt.Errorf("%w: %s/%s changed; preview the rollback again", ErrPlanStale, op.Root, op.Path)
		}
	}
	j := &journal{ID: p.ID, Session: p.Session, CallID: res.CallID, Ops: p.Ops}
	if err := s.writeJournal(j); err != nil {
		return res, err
	}
	skipped, err := s.runOps(ctx, j)
	if err != nil {
		// Put back what was there (all of it is in the Before checkpoint)
		// rather than leave a half-restored workspace. If even that fails,
		// the journal stays and the next Open finishes the rollback.
		back := &journal{ID: j.ID, Session: j.Session, CallID: j.CallID}
		for _, op := range j.Ops {
			back.Ops = append(back.Ops, Op{Root: op.Root, Path: op.Path, Target: op.Expect})
		}
		if _, rerr := s.runOps(context.WithoutCancel(ctx), back); rerr != nil {
			return res, fmt.Errorf("rollback stopped part way and could not be undone; it will be finished when the store is reopened: %w", errors.Join(err, rerr))
		}
		s.removeJournal(j.ID)
		return res, fmt.Errorf("rollback failed and the workspace was put back as it was: %w", err)
	}
	after, err := s.checkpointLocked(ctx, p.Session, res.CallID, Post, scopes)
	if err != nil {
		return res, fmt.Errorf("checkpoint after rollback: %w", err)
	}
	s.removeJournal(j.ID)
	res.After, res.Skipped = after.ID, skipped
	for _, op := range p.Ops {
		switch {
		case op.Target == nil:
			res.Deleted++
		case op.Expect == nil:
			res.Recreated++
		default:
			res.Restored++
		}
	}
	return res, nil
}

func (s *Store) validatePlan(p *Plan) error {
	if p == nil || p.Session == "" || p.ID == "" || strings.ContainsAny(p.ID, "/\\\x00") {
		return fmt.Errorf("%w: empty or malformed rollback plan", ErrBadRequest)
	}
	roots := map[string]bool{}
	for _, c := range s.ix.list(p.Session) {
		for _, r := range c.Roots {
			roots[r.Root] = true
		}
	}
	for _, op := range p.Ops {
		if !roots[op.Root] {
			return fmt.Errorf("%w: %s is not a workspace of session %s", ErrBadRequest, op.Root, p.Session)
		}
		if op.Path == "" || path.Clean(op.Path) != op.Path || strings.HasPrefix(op.Path, "/") || op.Path == ".." || strings.HasPrefix(op.Path, "../") {
			return fmt.Errorf("%w: bad path %q in plan", ErrBadRequest, op.Path)
		}
		if t := op.Target; t != nil {
			switch t.Kind {
			case KindFile, KindSymlink:
				if !s.objs.Has(t.Hash) {
					return &MissingObjectError{Hash: t.Hash, Path: op.Root + "/" + op.Path}
				}
			case KindDir:
			default:
				return fmt.Errorf("%w: cannot restore %s", ErrBadRequest, op.Path)
			}
		}
	}
	return nil
}

func opScopes(ops []Op) []rootScope {
	byRoot := map[string][]string{}
	for _, op := range ops {
		byRoot[op.Root] = append(byRoot[op.Root], op.Path)
	}
	var out []rootScope
	for r, rels := range byRoot {
		out = append(out, rootScope{root: r, rels: topmost(rels)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].root < out[j].root })
	return out
}

func depth(p string) int { return strings.Count(p, "/") }

// runOps makes the workspace match the journal's targets. Every step looks
// at what is there now, so running it again after a crash is safe.
func (s *Store) runOps(ctx context.Context, j *journal) ([]string, error) {
	byRoot := map[string][]int{}
	for i, op := range j.Ops {
		byRoot[op.Root] = append(byRoot[op.Root], i)
	}
	var skipped []string
	prog := s.progress(j.ID)
	defer prog.close()
	for root, idx := range byRoot {
		rootfd, err := openRoot(root)
		if err != nil {
			return skipped, err
		}
		sk, err := s.runRootOps(ctx, rootfd, j, idx, prog)
		unix.Close(rootfd)
		skipped = append(skipped, sk...)
		if err != nil {
			return skipped, err
		}
	}
	return skipped, nil
}

func (s *Store) runRootOps(ctx context.Context, rootfd int, j *journal, idx []int, prog *progress) ([]string, error) {
	var skipped []string
	ops := make([]Op, len(idx))
	for k, i := range idx {
		ops[k] = j.Ops[i]
	}
	// 1. Remove what must go, deepest first.
	order := make([]int, len(ops))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return depth(ops[order[a]].Path) > depth(ops[order[b]].Path) })
	for _, i := range order {
		op := ops[i]
		gone, err := removeIfNeeded(rootfd, op)
		if err != nil {
			return skipped, &PathError{Path: op.Path, Err: err}
		}
		if !gone {
			skipped = append(skipped, op.Path)
		}
	}
	prog.mark("removed")
	// 2. Create directories, shallowest first.
	for k := len(order) - 1; k >= 0; k-- {
		op := ops[order[k]]
		if op.Target == nil || op.Target.Kind != KindDir {
			continue
		}
		if err := makeDir(rootfd, op.Path, op.Target.Perm); err != nil {
			return skipped, &PathError{Path: op.Path, Err: err}
		}
	}
	prog.mark("dirs")
	// 3. Write files and links in parallel.
	var writes []Op
	for _, op := range ops {
		if op.Target != nil && op.Target.Kind != KindDir {
			writes = append(writes, op)
		}
	}
	if err := s.writeAll(ctx, rootfd, j.ID, writes, prog); err != nil {
		return skipped, err
	}
	// 4. Directory modes last (a read-only dir would block writes inside),
	// deepest first.
	for _, i := range order {
		op := ops[i]
		if op.Target == nil || op.Target.Kind != KindDir {
			continue
		}
		dir, name := splitRel(op.Path)
		parent, _, err := openDirChain(rootfd, dir)
		if err != nil {
			return skipped, &PathError{Path: op.Path, Err: err}
		}
		err = unix.Fchmodat(parent, name, op.Target.Perm&07777, 0)
		if parent != rootfd {
			unix.Close(parent)
		}
		if err != nil {
			return skipped, &PathError{Path: op.Path, Err: err}
		}
	}
	// 5. Make the directory entries durable.
	dirs := map[string]bool{}
	for _, op := range ops {
		d, _ := splitRel(op.Path)
		dirs[d] = true
	}
	dirList := make([]string, 0, len(dirs))
	for d := range dirs {
		dirList = append(dirList, d)
	}
	parallel(s.opts.Workers, len(dirList), func(i int) bool {
		fd, _, err := openDirChain(rootfd, dirList[i])
		if err != nil {
			return true // removed on purpose
		}
		_ = unix.Fsync(fd)
		if fd != rootfd {
			unix.Close(fd)
		}
		return true
	})
	prog.mark("done")
	return skipped, nil
}

// removeIfNeeded clears op.Path when what is there has the wrong type for
// the target (or the target is absence). gone=false means a directory could
// not be removed because it still holds files the plan keeps.
func removeIfNeeded(rootfd int, op Op) (bool, error) {
	dir, name := splitRel(op.Path)
	parent, _, err := openDirChain(rootfd, dir)
	if err != nil {
		if isGone(err) || errors.Is(err, unix.ELOOP) {
			return true, nil // nothing there under a real directory
		}
		return true, err
	}
	if parent != rootfd {
		defer unix.Close(parent)
	}
	var st unix.Stat_t
	if err := unix.Fstatat(parent, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		if isGone(err) {
			return true, nil
		}
		return true, err
	}
	isDir := st.Mode&unix.S_IFMT == unix.S_IFDIR
	wantDir := op.Target != nil && op.Target.Kind == KindDir
	if op.Target != nil && isDir == wantDir {
		return true, nil // same type: overwritten or kept in a later step
	}
	if isDir {
		if err := unix.Unlinkat(parent, name, unix.AT_REMOVEDIR); err != nil {
			if errors.Is(err, unix.ENOTEMPTY) || errors.Is(err, unix.EEXIST) {
				return false, nil
			}
			return true, err
		}
		return true, nil
	}
	if err := unix.Unlinkat(parent, name, 0); err != nil && !isGone(err) {
		return true, err
	}
	return true, nil
}

func makeDir(rootfd int, rel string, perm uint32) error {
	dir, name := splitRel(rel)
	parent, _, err := openDirChain(rootfd, dir)
	if err != nil {
		return err
	}
	if parent != rootfd {
		defer unix.Close(parent)
	}
	err = unix.Mkdirat(parent, name, 0o700)
	if errors.Is(err, unix.EEXIST) {
		var st unix.Stat_t
		if err := unix.Fstatat(parent, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return err
		}
		if st.Mode&unix.S_IFMT != unix.S_IFDIR {
			return fmt.Errorf("%s is in the way of a directory", rel)
		}
		return nil
	}
	return err
}

func (s *Store) writeAll(ctx context.Context, rootfd int, jid string, ops []Op, prog *progress) error {
	var firstErr error
	var mu sync.Mutex
	parallel(s.opts.Workers, len(ops), func(i int) bool {
		if ctx.Err() != nil {
			return false
		}
		if err := s.writeOne(rootfd, jid, ops[i]); err != nil {
			mu.Lock()
			if firstErr == nil {
				firstErr = &PathError{Path: ops[i].Path, Err: err}
			}
			mu.Unlock()
			return false
		}
		prog.done()
		return true
	})
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

// tempName is deterministic so a crashed rollback's leftovers are known.
func tempName(jid, name string) string {
	h := hashBytes([]byte(jid + "/" + name))
	return ".gatehouse-rb-" + h.String()[:16]
}

// writeOne writes a file or symlink via a temp name and rename, never
// following symlinks in the path.
func (s *Store) writeOne(rootfd int, jid string, op Op) error {
	dir, name := splitRel(op.Path)
	parent, _, err := openDirChain(rootfd, dir)
	if err != nil {
		return fmt.Errorf("parent directory: %w", err)
	}
	if parent != rootfd {
		defer unix.Close(parent)
	}
	data, err := s.object(op.Target.Hash)
	if err != nil {
		return err
	}
	tmp := tempName(jid, op.Path)
	_ = unix.Unlinkat(parent, tmp, 0)
	if op.Target.Kind == KindSymlink {
		if err := unix.Symlinkat(string(data), parent, tmp); err != nil {
			return err
		}
	} else {
		fd, err := unix.Openat(parent, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if err != nil {
			return err
		}
		err = writeFull(fd, data)
		if err == nil {
			err = unix.Fchmod(fd, op.Target.Perm&07777)
		}
		if err == nil {
			err = unix.Fsync(fd)
		}
		if cerr := unix.Close(fd); err == nil {
			err = cerr
		}
		if err != nil {
			_ = unix.Unlinkat(parent, tmp, 0)
			return err
		}
	}
	if err := unix.Renameat(parent, tmp, parent, name); err != nil {
		_ = unix.Unlinkat(parent, tmp, 0)
		return err
	}
	return nil
}

func writeFull(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := unix.Write(fd, b)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}
