package session

import "github.com/gatehouse-dev/gatehouse/backend/policy"

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
