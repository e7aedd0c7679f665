package snapshot

import (
	"context"
	"fmt"
)

// List returns a session's checkpoints, oldest first.
func (s *Store) List(session string) ([]Checkpoint, error) {
	cps := s.ix.list(session)
	out := make([]Checkpoint, len(cps))
	for i, c := range cps {
		out[i] = *c
	}
	return out, nil
}

// Get returns one checkpoint by id.
func (s *Store) Get(id string) (Checkpoint, error) {
	c := s.ix.get(id)
	if c == nil {
		return Checkpoint{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return *c, nil
}

// getIn returns a checkpoint that must belong to session.
func (s *Store) getIn(session, id string) (*Checkpoint, error) {
	c := s.ix.get(id)
	if c == nil {
		return nil, fmt.Errorf("%w: %s; list the session's checkpoints and pick one of those", ErrNotFound, id)
	}
	if c.Session != session {
		return nil, &WrongSessionError{ID: id, Session: session, Owner: c.Session}
	}
	return c, nil
}

// Changes lists what differs from checkpoint fromID to toID (for a call:
// its pre and post checkpoints), with unified diffs for text files.
func (s *Store) Changes(ctx context.Context, fromID, toID string) ([]Change, error) {
	return s.changes(ctx, fromID, toID, true)
}

// ChangeList is Changes without the text diffs: what changed, cheaply.
func (s *Store) ChangeList(ctx context.Context, fromID, toID string) ([]Change, error) {
	return s.changes(ctx, fromID, toID, false)
}

func (s *Store) changes(ctx context.Context, fromID, toID string, withDiff bool) ([]Change, error) {
	from, err := s.Get(fromID)
	if err != nil {
		return nil, err
	}
	to, err := s.Get(toID)
	if err != nil {
		return nil, err
	}
	s.gcMu.RLock()
	defer s.gcMu.RUnlock()
	var out []Change
	for _, r := range to.Roots {
		a, ok := from.tree(r.Root)
		if !ok {
			continue
		}
		err := s.diffTrees(a, r.Tree, "", func(pc pathChange) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			out = append(out, s.describe(r.Root, pc.path, pc.old, pc.new, withDiff))
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// describe renders a change from old to new (either may be nil).
func (s *Store) describe(root, path string, old, new *Entry, withDiff bool) Change {
	c := Change{Root: root, Path: path}
	switch {
	case old == nil:
		c.Kind = Added
	case new == nil:
		c.Kind = Deleted
	case old.Kind != new.Kind:
		c.Kind = TypeChanged
	case old.Hash == new.Hash && old.Size == new.Size:
		c.Kind = ModeChanged
	default:
		c.Kind = Modified
	}
	if old != nil {
		c.OldKind, c.OldPerm, c.OldSize = old.Kind, old.Perm, old.Size
	}
	if new != nil {
		c.NewKind, c.NewPerm, c.NewSize = new.Kind, new.Perm, new.Size
	}
	if withDiff && c.Kind != ModeChanged {
		c.Diff, c.Binary = s.textDiff(path, old, new)
	}
	return c
}

// textDiff diffs two file entries; binary=true when either side is not text.
func (s *Store) textDiff(path string, old, new *Entry) (string, bool) {
	content := func(e *Entry) ([]byte, bool) {
		if e == nil || e.Kind == KindDir {
			return nil, true
		}
		if e.Kind != KindFile || e.Size > maxDiffBytes {
			return nil, false
		}
		b, err := s.object(e.Hash)
		return b, err == nil
	}
	if (old == nil || old.Kind != KindFile) && (new == nil || new.Kind != KindFile) {
		return "", false
	}
	a, okA := content(old)
	b, okB := content(new)
	if !okA || !okB {
		return "", true
	}
	d, ok := unifiedDiff(path, a, b)
	return d, !ok
}
