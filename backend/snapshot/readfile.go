package snapshot

import (
	"fmt"
	"io/fs"
	"strings"
)

// ReadFile returns one file of a checkpoint: rel (slash-separated,
// relative to root) as it was when checkpoint id was taken. A run that
// could not be staged has changed the workspace by the time it is judged,
// so its checkpoint before is the only place git's own small files (the
// index, refs, packed-refs) can still be read as they were. A path the
// checkpoint does not hold as a restorable file is fs.ErrNotExist.
func (s *Store) ReadFile(id, root, rel string) ([]byte, error) {
	cp, err := s.Get(id)
	if err != nil {
		return nil, err
	}
	h, ok := cp.tree(root)
	if !ok {
		return nil, fmt.Errorf("checkpoint %s has no root %s: %w", id, root, fs.ErrNotExist)
	}
	s.gcMu.RLock()
	defer s.gcMu.RUnlock()
	parts := strings.Split(strings.Trim(rel, "/"), "/")
	for i, name := range parts {
		es, err := s.readTree(h)
		if err != nil {
			return nil, fmt.Errorf("read checkpoint %s: %w", id, err)
		}
		j, found := findEntry(es, name)
		if !found {
			return nil, fmt.Errorf("%s in checkpoint %s: %w", rel, id, fs.ErrNotExist)
		}
		e := es[j]
		last := i == len(parts)-1
		switch {
		case !last && e.Kind == KindDir, last && e.Kind == KindFile:
			h = e.Hash
		default:
			return nil, fmt.Errorf("%s in checkpoint %s is not a file: %w", rel, id, fs.ErrNotExist)
		}
	}
	b, err := s.object(h)
	if err != nil {
		return nil, fmt.Errorf("read %s from checkpoint %s: %w", rel, id, err)
	}
	return b, nil
}
