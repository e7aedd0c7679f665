package session

import (
	"fmt"
	"os"
)

// MakeTmp is the session's temporary directory on the host, made on first
// use: every command of the session, and a confined agent's run, sees it
// as /tmp (TMPDIR under Landlock), so what one command saves there the
// next finds, as an agent expects. It lives in the data dir, one per
// session, and goes when the session closes. "" when the daemon keeps
// none (each command then gets a /tmp of its own).
func (s *State) MakeTmp() (string, error) {
	if s.Tmp == "" {
		return "", nil
	}
	if err := os.MkdirAll(s.Tmp, 0o700); err != nil {
		return "", fmt.Errorf("make the session's temporary directory: %w", err)
	}
	return s.Tmp, nil
}

// removeTmp removes the temporary directory once the session is over.
func (s *State) removeTmp() {
	if s.Tmp != "" {
		_ = os.RemoveAll(s.Tmp)
	}
}
