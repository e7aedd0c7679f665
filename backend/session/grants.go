package session

import (
	"slices"

	"github.com/gatehouse-dev/gatehouse/backend/policy"
)

// AddGrant remembers an "allow for this session".
func (s *State) AddGrant(r policy.Rule) {
	s.mu.Lock()
	s.grants = append(s.grants, r)
	s.mu.Unlock()
}

// Grants are the session's "allow for this session" rules, a copy the
// caller may keep while more are added.
func (s *State) Grants() []policy.Rule {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]policy.Rule(nil), s.grants...)
}

// AddReadOnly shows path, read-only, to this session's commands from now
// on: the person's "for this session" on a proposal card.
func (s *State) AddReadOnly(path string) {
	s.mu.Lock()
	if !slices.Contains(s.readOnly, path) {
		s.readOnly = append(s.readOnly, path)
	}
	s.mu.Unlock()
}

// ReadOnly are the paths AddReadOnly showed, a copy.
func (s *State) ReadOnly() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.readOnly)
}
