package snapshot

import (
	"context"
	"sort"

	"github.com/gatehouse-dev/gatehouse/backend/snapshot/pack"
)

// PruneResult reports what Prune removed.
type PruneResult struct {
	Dropped      []string `json:"dropped"` // checkpoint ids
	FreedBytes   int64    `json:"freed_bytes"`
	LiveBytes    int64    `json:"live_bytes"`
	PacksRewrite int      `json:"packs_rewritten"`
}

// maybePrune starts a background prune when the store may be over budget.
// Cheap tests first: no root can exceed the budget while the whole store
// is under it, and none can be over it by more than the store grew since
// the last prune. A prune walks every checkpoint, so one waits for a
// tenth of the budget's growth: several workspaces together over the
// budget, or one whose newest checkpoint alone is, would otherwise walk
// them all after every call.
func (s *Store) maybePrune() {
	total := s.objs.TotalBytes()
	if s.opts.BudgetBytes < 0 || total <= s.opts.BudgetBytes {
		return
	}
	if last := s.prunedSize.Load(); last > 0 && total < last+s.opts.BudgetBytes/10 {
		return
	}
	if !s.pruneRun.CompareAndSwap(false, true) {
		return
	}
	s.saveWG.Add(1)
	go func() {
		defer s.saveWG.Done()
		defer s.pruneRun.Store(false)
		if s.closed.Load() {
			return
		}
		res, err := s.Prune(context.Background())
		if err != nil {
			s.log.Warn("snapshot prune failed", "err", err)
			return
		}
		s.prunedSize.Store(max(res.LiveBytes, 1))
		if len(res.Dropped) > 0 {
			s.log.Info("pruned old checkpoints", "dropped", len(res.Dropped), "freed", res.FreedBytes)
		}
	}()
}

// Prune drops, per workspace root, the oldest checkpoints beyond the byte
// budget (the newest one always stays), then deletes every object no
// remaining checkpoint reaches (mark and sweep), rewriting partly dead packs.
func (s *Store) Prune(ctx context.Context) (PruneResult, error) {
	s.gcMu.Lock()
	defer s.gcMu.Unlock()
	var res PruneResult
	if s.closed.Load() {
		return res, ErrClosed
	}
	s.prunes.Add(1)
	all := s.ix.all() // oldest first
	drop := map[string]*Checkpoint{}
	if s.opts.BudgetBytes >= 0 {
		roots := map[string][]*Checkpoint{}
		for _, c := range all {
			for _, r := range c.Roots {
				roots[r.Root] = append(roots[r.Root], c)
			}
		}
		for root, list := range roots {
			seen := map[Hash]bool{}
			var used int64
			for i := len(list) - 1; i >= 0; i-- {
				c := list[i]
				tree, _ := c.tree(root)
				n, err := s.markSize(tree, seen)
				if err != nil {
					return res, err
				}
				used += n
				if used > s.opts.BudgetBytes && i < len(list)-1 {
					for _, old := range list[:i+1] {
						drop[old.ID] = old
					}
					break
				}
			}
		}
	}
	bySession := map[string][]logLine{}
	for id, c := range drop {
		bySession[c.Session] = append(bySession[c.Session], logLine{Drop: id})
		res.Dropped = append(res.Dropped, id)
	}
	sort.Strings(res.Dropped)
	for sess, lines := range bySession {
		if err := s.ix.append(sess, lines...); err != nil {
			return res, err
		}
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	live := map[Hash]bool{}
	for _, c := range s.ix.all() {
		for _, r := range c.Roots {
			if _, err := s.markSize(r.Tree, live); err != nil {
				return res, err
			}
		}
	}
	before := s.objs.TotalBytes()
	n, err := s.objs.Sweep(func(h pack.Key) bool { return live[h] })
	res.PacksRewrite = n
	if err != nil {
		return res, err
	}
	s.trees.Clear()
	s.treeN.Store(0)
	s.rootsMu.Lock()
	for _, rs := range s.roots {
		rs.mu.Lock()
		if rs.cache != nil {
			rs.cache = dropSwept(rs.cache, s.objs.Has)
		}
		rs.mu.Unlock()
	}
	s.rootsMu.Unlock()
	res.LiveBytes = s.objs.TotalBytes()
	res.FreedBytes = before - res.LiveBytes
	return res, nil
}

// markSize marks every object reachable from tree and returns the stored
// size of those not marked before.
func (s *Store) markSize(tree Hash, seen map[Hash]bool) (int64, error) {
	if tree.IsZero() || seen[tree] {
		return 0, nil
	}
	seen[tree] = true
	var n int64
	if size, ok := s.objs.Size(tree); ok {
		n += size
	}
	es, err := s.readTree(tree)
	if err != nil {
		return n, err
	}
	for _, e := range es {
		switch e.Kind {
		case KindDir:
			m, err := s.markSize(e.Hash, seen)
			n += m
			if err != nil {
				return n, err
			}
		case KindFile, KindSymlink:
			if !seen[e.Hash] {
				seen[e.Hash] = true
				if size, ok := s.objs.Size(e.Hash); ok {
					n += size
				}
			}
		}
	}
	return n, nil
}

// dropSwept returns n without the cached entries whose objects GC removed,
// so a later scan re-reads those files instead of trusting a dead hash.
func dropSwept(n *node, has func(pack.Key) bool) *node {
	switch n.e.Kind {
	case KindFile, KindSymlink:
		if !has(n.e.Hash) {
			return nil
		}
		return n
	case KindDir:
		changed := false
		kids := make([]*node, 0, len(n.kids))
		for _, k := range n.kids {
			nk := dropSwept(k, has)
			if nk != k {
				changed = true
			}
			if nk != nil {
				kids = append(kids, nk)
			}
		}
		if !changed && (n.e.Hash.IsZero() || has(n.e.Hash)) {
			return n
		}
		cp := *n
		cp.kids = kids
		cp.e.Hash = Hash{} // no longer describes a stored tree
		cp.racy = true     // nor is its listing what is on disk
		return &cp
	}
	return n
}
