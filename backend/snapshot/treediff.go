package snapshot

import "github.com/gatehouse-dev/gatehouse/backend/workspace"

// pathChange is one path whose entry differs between two trees. Dirs that
// appear or disappear are reported along with everything under them.
type pathChange struct {
	path     string
	old, new *Entry
}

// diffTrees calls fn for each differing path, parents before children.
// Equal subtrees are skipped by hash without being read.
func (s *Store) diffTrees(a, b Hash, prefix string, fn func(pathChange) error) error {
	if a == b {
		return nil
	}
	var ea, eb []Entry
	var err error
	if !a.IsZero() {
		if ea, err = s.readTree(a); err != nil {
			return err
		}
	}
	if !b.IsZero() {
		if eb, err = s.readTree(b); err != nil {
			return err
		}
	}
	i, j := 0, 0
	for i < len(ea) || j < len(eb) {
		switch {
		case j >= len(eb) || (i < len(ea) && ea[i].Name < eb[j].Name):
			if err := s.emitSide(&ea[i], nil, prefix, fn); err != nil {
				return err
			}
			i++
		case i >= len(ea) || eb[j].Name < ea[i].Name:
			if err := s.emitSide(nil, &eb[j], prefix, fn); err != nil {
				return err
			}
			j++
		default:
			x, y := &ea[i], &eb[j]
			p := joinRel(prefix, x.Name)
			if x.Kind == KindDir && y.Kind == KindDir {
				if x.Perm != y.Perm {
					if err := fn(pathChange{p, x, y}); err != nil {
						return err
					}
				}
				if err := s.diffTrees(x.Hash, y.Hash, p, fn); err != nil {
					return err
				}
			} else if !x.same(*y) {
				if err := fn(pathChange{p, x, y}); err != nil {
					return err
				}
				if x.Kind == KindDir {
					if err := s.diffTrees(x.Hash, Hash{}, p, fn); err != nil {
						return err
					}
				}
				if y.Kind == KindDir {
					if err := s.diffTrees(Hash{}, y.Hash, p, fn); err != nil {
						return err
					}
				}
			}
			i++
			j++
		}
	}
	return nil
}

func (s *Store) emitSide(old, new *Entry, prefix string, fn func(pathChange) error) error {
	e := old
	if e == nil {
		e = new
	}
	p := joinRel(prefix, e.Name)
	if err := fn(pathChange{p, old, new}); err != nil {
		return err
	}
	if e.Kind != KindDir {
		return nil
	}
	if old != nil {
		return s.diffTrees(e.Hash, Hash{}, p, fn)
	}
	return s.diffTrees(Hash{}, e.Hash, p, fn)
}

// entryAt finds rel in tree h; nil when absent.
func (s *Store) entryAt(h Hash, rel string) (*Entry, error) {
	if rel == "" {
		return &Entry{Kind: KindDir, Hash: h}, nil
	}
	cur := h
	parts := workspace.SplitRel(rel)
	for i, part := range parts {
		es, err := s.readTree(cur)
		if err != nil {
			return nil, err
		}
		k, ok := findEntry(es, part)
		if !ok {
			return nil, nil
		}
		e := es[k]
		if i == len(parts)-1 {
			return &e, nil
		}
		if e.Kind != KindDir {
			return nil, nil
		}
		cur = e.Hash
	}
	return nil, nil
}
