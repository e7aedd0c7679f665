package snapshot

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/randid"
)

// RollbackRequest names what to undo: either everything back to checkpoint
// To, or just the changes of one call (UndoCall).
type RollbackRequest struct {
	Session  string `json:"session"`
	To       string `json:"to,omitempty"`
	UndoCall string `json:"undo_call,omitempty"`
	// Force also overwrites external edits and, for UndoCall, changes later
	// calls made to the same files.
	Force bool `json:"force,omitempty"`
}

// Action is what a rollback does to one path.
type Action string

const (
	Restore  Action = "restore"  // exists now, goes back to its old content or mode
	Delete   Action = "delete"   // exists now, did not exist then
	Recreate Action = "recreate" // gone now, comes back
)

// PlanItem is one path a rollback will change.
type PlanItem struct {
	Root   string `json:"root"`
	Path   string `json:"path"`
	Action Action `json:"action"`
	Kind   Kind   `json:"kind"`
	Perm   uint32 `json:"perm"`
	Binary bool   `json:"binary,omitempty"`
	Diff   string `json:"diff,omitempty"` // current → restored, for text
}

// Held is a path the rollback leaves alone unless forced.
type Held struct {
	Root  string   `json:"root"`
	Path  string   `json:"path"`
	Calls []string `json:"calls,omitempty"` // later calls that touched it (conflicts)
	// Diff shows what forcing would overwrite (kept → restored).
	Diff   string `json:"diff,omitempty"`
	Binary bool   `json:"binary,omitempty"`
	Forced bool   `json:"forced,omitempty"` // Force is set: it will be overwritten
}

// Op is one exact step of a plan: make Path look like Target (nil: absent),
// given that it looked like Expect when the plan was made.
type Op struct {
	Root   string `json:"root"`
	Path   string `json:"path"`
	Expect *Entry `json:"expect,omitempty"`
	Target *Entry `json:"target,omitempty"`
}

// Plan is a rollback preview; Apply carries it out.
type Plan struct {
	ID            string          `json:"id"`
	Session       string          `json:"session"`
	Request       RollbackRequest `json:"request"`
	Created       time.Time       `json:"created"`
	Roots         []string        `json:"roots"`
	Items         []PlanItem      `json:"items"`
	Conflicts     []Held          `json:"conflicts,omitempty"`
	ExternalEdits []Held          `json:"external_edits,omitempty"`
	NotRestorable []NotRestorable `json:"not_restorable,omitempty"`
	Ops           []Op            `json:"ops"`
}

type decision struct {
	path        string
	cur, target *Entry
}

// span is the change between two consecutive checkpoints of a root: a
// call's doing when it starts at a pre checkpoint, else a gap in which only
// someone outside Gatehouse could have changed files.
type span struct {
	call   bool
	callID string
	paths  map[string]*Entry // path → entry after the span (nil: deleted)
}

// Plan previews a rollback. It reads the current workspace but changes
// nothing in it. An unforced plan reads only the paths recorded calls (and
// the gaps between them) changed, so its ExternalEdits cover those paths;
// a forced plan reads the whole workspace and lists every external edit it
// will overwrite.
func (s *Store) Plan(ctx context.Context, req RollbackRequest) (*Plan, error) {
	if req.Session == "" || (req.To == "") == (req.UndoCall == "") {
		return nil, fmt.Errorf("%w: a rollback needs a session and exactly one of a checkpoint or a call to undo", ErrBadRequest)
	}
	s.gcMu.RLock()
	defer s.gcMu.RUnlock()
	if s.closed.Load() {
		return nil, ErrClosed
	}
	p := &Plan{ID: newPlanID(), Session: req.Session, Request: req, Created: time.Now().UTC()}
	cps := s.ix.list(req.Session)
	if req.To != "" {
		t, err := s.getIn(req.Session, req.To)
		if err != nil {
			return nil, err
		}
		at := indexOf(cps, t)
		for _, r := range t.Roots {
			if err := s.planTo(ctx, p, r.Root, t, cps[at+1:]); err != nil {
				return nil, err
			}
		}
	} else {
		pre, post := -1, -1
		for i, c := range cps {
			if c.CallID == req.UndoCall && c.Phase == Pre {
				pre, post = i, -1
			}
			if c.CallID == req.UndoCall && c.Phase == Post && pre >= 0 && post < 0 {
				post = i
			}
		}
		if pre < 0 {
			if s.callInOtherSession(req.Session, req.UndoCall) {
				return nil, &WrongSessionError{ID: req.UndoCall, Session: req.Session}
			}
			return nil, fmt.Errorf("%w: no checkpoint for call %s in this session", ErrNotFound, req.UndoCall)
		}
		if post < 0 {
			return nil, fmt.Errorf("%w: call %s has no post-call checkpoint yet; wait for it to finish", ErrBadRequest, req.UndoCall)
		}
		for _, r := range cps[pre].Roots {
			if err := s.planUndo(ctx, p, r.Root, cps[pre], cps[post], cps[post+1:]); err != nil {
				return nil, err
			}
		}
	}
	return p, nil
}

func (s *Store) callInOtherSession(session, call string) bool {
	for _, c := range s.ix.all() {
		if c.CallID == call && c.Session != session {
			return true
		}
	}
	return false
}

func indexOf(cps []*Checkpoint, c *Checkpoint) int {
	for i, x := range cps {
		if x == c {
			return i
		}
	}
	return -1
}

func newPlanID() string { return randid.New("rb_", 8) }

func eqEntry(a, b *Entry) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.same(*b)
}

func (s *Store) spans(root string, seq []*Checkpoint) ([]span, error) {
	var withRoot []*Checkpoint
	for _, c := range seq {
		if _, ok := c.tree(root); ok {
			withRoot = append(withRoot, c)
		}
	}
	var out []span
	for k := 0; k+1 < len(withRoot); k++ {
		a, _ := withRoot[k].tree(root)
		b, _ := withRoot[k+1].tree(root)
		sp := span{call: withRoot[k].Phase == Pre, callID: withRoot[k].CallID, paths: map[string]*Entry{}}
		err := s.diffTrees(a, b, "", func(pc pathChange) error {
			sp.paths[pc.path] = pc.new
			return nil
		})
		if err != nil {
			return nil, err
		}
		out = append(out, sp)
	}
	return out, nil
}

// scanCurrent reads the current state of root (all of it, or rels only,
// spliced onto the session's latest tree) and returns its tree. New
// content is stored so the rollback's own pre-checkpoint finds it cached.
func (s *Store) scanCurrent(ctx context.Context, session, root string, rels []string) (Hash, []NotRestorable, error) {
	rs := s.rootState(root)
	rs.mu.Lock()
	defer rs.mu.Unlock()
	s.ensureLoaded(root, rs)
	b := s.objs.NewBatch()
	scn := s.newScanner(ctx, b, root, true)
	var tree Hash
	var n *node
	var err error
	base, ok := s.ix.latestTree(session, root)
	if rels == nil || !ok {
		n, err = s.scanRoot(scn, root, rs.cache)
		if err == nil {
			tree = n.e.Hash
		}
	} else {
		tree, n, err = s.scanScoped(scn, root, base, topmost(rels), rs.cache)
	}
	if err != nil {
		b.Abort()
		return Hash{}, nil, err
	}
	if err := b.Commit(); err != nil {
		return Hash{}, nil, err
	}
	s.adopt(root, rs, n)
	return tree, scn.unrest, nil
}

func (s *Store) planTo(ctx context.Context, p *Plan, root string, t *Checkpoint, later []*Checkpoint) error {
	tTree, _ := t.tree(root)
	seq := append([]*Checkpoint{t}, later...)
	spans, err := s.spans(root, seq)
	if err != nil {
		return err
	}
	last := tTree
	for _, c := range later {
		if h, ok := c.tree(root); ok {
			last = h
		}
	}
	// Unforced, only paths some call or gap changed can change: every other
	// path is the same in T and in the last checkpoint, and whatever the
	// person did to it since is kept anyway. So read just those paths.
	// Forced, the workspace must end up exactly as T: read everything.
	var rels []string
	if !p.Request.Force {
		rels = []string{}
		for _, sp := range spans {
			for path := range sp.paths {
				rels = append(rels, path)
			}
		}
	}
	cur, _, err := s.scanCurrent(ctx, p.Session, root, rels)
	if err != nil {
		return err
	}
	// Paths T did not record because they were excluded then are not
	// "absent in T": never delete them, even if the excludes changed since.
	tEx := newExcluder(t.Excludes)
	objects := s.gitObjectsIn(tTree)
	var decs []decision
	err = s.diffTrees(tTree, cur, "", func(pc pathChange) error {
		if pc.old == nil && tEx.matchesAncestor(pc.path, pc.new.Kind == KindDir) {
			return nil
		}
		if pc.old == nil && objects.has(pc.path) {
			return nil // see gitobjects.go
		}
		d := decision{path: pc.path, cur: pc.new, target: pc.old}
		lastE, err := s.entryAt(last, pc.path)
		if err != nil {
			return err
		}
		var keep *Entry
		held := false
		if !eqEntry(pc.new, lastE) {
			held, keep = true, pc.new // changed since the last checkpoint
		} else {
			for _, sp := range spans {
				if e, ok := sp.paths[pc.path]; ok && !sp.call {
					held, keep = true, e // the person's latest version
				}
			}
		}
		if held {
			s.hold(p, &p.ExternalEdits, &d, root, nil, keep, pc.old)
		}
		decs = append(decs, d)
		return nil
	})
	if err != nil {
		return err
	}
	return s.finishPlan(p, root, decs)
}

func (s *Store) planUndo(ctx context.Context, p *Plan, root string, pre, post *Checkpoint, later []*Checkpoint) error {
	preTree, _ := pre.tree(root)
	postTree, ok := post.tree(root)
	if !ok {
		return nil
	}
	type changed struct {
		path      string
		old, new_ *Entry
	}
	var chg []changed
	var rels []string
	err := s.diffTrees(preTree, postTree, "", func(pc pathChange) error {
		chg = append(chg, changed{pc.path, pc.old, pc.new})
		rels = append(rels, pc.path)
		return nil
	})
	if err != nil || len(chg) == 0 {
		return err
	}
	spans, err := s.spans(root, append([]*Checkpoint{post}, later...))
	if err != nil {
		return err
	}
	cur, _, err := s.scanCurrent(ctx, p.Session, root, rels)
	if err != nil {
		return err
	}
	objects := s.gitObjectsIn(preTree)
	var decs []decision
	for _, c := range chg {
		if c.old == nil && objects.has(c.path) {
			continue // see gitobjects.go
		}
		curE, err := s.entryAt(cur, c.path)
		if err != nil {
			return err
		}
		d := decision{path: c.path, cur: curE, target: c.old}
		var calls []string
		for _, sp := range spans {
			if _, ok := sp.paths[c.path]; ok && sp.call {
				calls = append(calls, sp.callID)
			}
		}
		switch {
		case len(calls) > 0:
			s.hold(p, &p.Conflicts, &d, root, calls, curE, c.old)
		case !eqEntry(curE, c.new_):
			s.hold(p, &p.ExternalEdits, &d, root, nil, curE, c.old)
		}
		decs = append(decs, d)
	}
	return s.finishPlan(p, root, decs)
}

// hold lists d's path in list (Conflicts or ExternalEdits) because its
// version keep, which someone other than the undone call made, stands where
// the rollback would put old. The item shows the difference, and unless the
// request is forced the rollback keeps keep.
func (s *Store) hold(p *Plan, list *[]Held, d *decision, root string, calls []string, keep, old *Entry) {
	h := Held{Root: root, Path: d.path, Calls: calls, Forced: p.Request.Force}
	h.Diff, h.Binary = s.textDiff(d.path, keep, old)
	*list = append(*list, h)
	if !p.Request.Force {
		d.target = keep
	}
}

// finishPlan turns decisions into ops and preview items.
func (s *Store) finishPlan(p *Plan, root string, decs []decision) error {
	p.Roots = append(p.Roots, root)
	final := make(map[string]*Entry, len(decs))
	for _, d := range decs {
		final[d.path] = d.target
	}
	sort.Slice(decs, func(i, j int) bool { return decs[i].path < decs[j].path })
	var diffs []int // indexes into p.Items
	var pending [][2]*Entry
	for _, d := range decs {
		if eqEntry(d.cur, d.target) {
			continue
		}
		if !parentsAllow(final, d.path, d.target != nil) {
			continue // something above it is kept as a non-directory
		}
		if t := d.target; t != nil && t.Kind == KindUnrestorable ||
			d.cur != nil && d.cur.Kind == KindUnrestorable && d.target != nil {
			size := int64(0)
			kind := "special"
			if t := d.target; t != nil && t.Kind == KindUnrestorable {
				size, kind = t.Size, reasonName(t.Reason)
			} else if d.cur != nil {
				size, kind = d.cur.Size, reasonName(d.cur.Reason)
			}
			p.NotRestorable = append(p.NotRestorable, NotRestorable{Root: root, Path: d.path, Size: size, Kind: kind})
			continue
		}
		if t := d.target; t != nil && (t.Kind == KindFile || t.Kind == KindSymlink) && !s.objs.Has(t.Hash) {
			return &MissingObjectError{Hash: t.Hash, Path: root + "/" + d.path}
		}
		op := Op{Root: root, Path: d.path, Expect: d.cur, Target: d.target}
		p.Ops = append(p.Ops, op)
		it := PlanItem{Root: root, Path: d.path}
		switch {
		case d.target == nil:
			it.Action, it.Kind, it.Perm = Delete, d.cur.Kind, d.cur.Perm
		case d.cur == nil:
			it.Action, it.Kind, it.Perm = Recreate, d.target.Kind, d.target.Perm
		default:
			it.Action, it.Kind, it.Perm = Restore, d.target.Kind, d.target.Perm
		}
		if (d.cur != nil && d.cur.Kind == KindFile) || (d.target != nil && d.target.Kind == KindFile) {
			diffs = append(diffs, len(p.Items))
			pending = append(pending, [2]*Entry{d.cur, d.target})
		}
		p.Items = append(p.Items, it)
	}
	// Diffs in parallel: each reads two objects (often decoding a block)
	// and diffs them; the blocks stay cached for Apply.
	parallel(s.opts.Workers, len(diffs), func(k int) bool {
		it := &p.Items[diffs[k]]
		it.Diff, it.Binary = s.textDiff(it.Path, pending[k][0], pending[k][1])
		return true
	})
	return nil
}

// parentsAllow reports whether path can take its target given the final
// state of its ancestors: deleting is always possible, creating needs every
// ancestor the plan decides on to end up a directory.
func parentsAllow(final map[string]*Entry, path string, exists bool) bool {
	if !exists {
		return true
	}
	for i := strings.LastIndexByte(path, '/'); i > 0; i = strings.LastIndexByte(path[:i], '/') {
		if e, ok := final[path[:i]]; ok && (e == nil || e.Kind != KindDir) {
			return false
		}
	}
	return true
}
