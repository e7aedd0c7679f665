// Package token makes and checks the two bearer capabilities. The agent
// token opens /mcp only; the control token opens /api/v1 only. Plaintext
// lives in 0600 files for local clients; the daemon keeps only hashes.
package token

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"time"
)

// Kind separates the capabilities; they are never interchangeable.
type Kind string

const (
	Agent   Kind = "agent"
	Control Kind = "control"
)

// Size is the number of random bytes in a token.
const Size = 32

// New returns a fresh random token, hex encoded.
func New() (string, error) {
	b := make([]byte, Size)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("read random: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// Hash is what the daemon stores and compares.
func Hash(tok string) [sha256.Size]byte { return sha256.Sum256([]byte(tok)) }

// HashHex is Hash as hex, for storage.
func HashHex(tok string) string { h := Hash(tok); return hex.EncodeToString(h[:]) }

// Entry is one known token, by hash.
type Entry struct {
	ID   string
	Kind Kind
	Name string // client name for agent tokens, e.g. "default" or "claude-code"
	Hash [sha256.Size]byte
	// Expires, when set, ends the token's validity (browser logins).
	Expires time.Time
}

// Set holds the active token hashes. Safe for concurrent use.
type Set struct {
	mu      sync.RWMutex
	entries []Entry
	// held are tokens the daemon minted for as long as something runs (a
	// confined run's own): never stored, and kept across Replace.
	held map[string]Entry
}

// Hold adds e until release is called.
func (s *Set) Hold(e Entry) (release func()) {
	s.mu.Lock()
	if s.held == nil {
		s.held = map[string]Entry{}
	}
	s.held[e.ID] = e
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		delete(s.held, e.ID)
		s.mu.Unlock()
	}
}

// Replace swaps in a new list (after a create or revoke).
func (s *Set) Replace(entries []Entry) {
	s.mu.Lock()
	s.entries = append([]Entry(nil), entries...)
	s.mu.Unlock()
}

// Match finds the token of the wanted kind. Every candidate of that kind is
// compared in constant time so timing reveals nothing about near misses.
func (s *Set) Match(presented string, want Kind) (Entry, bool) {
	h := Hash(presented)
	now := time.Now()
	s.mu.RLock()
	defer s.mu.RUnlock()
	var found Entry
	ok := 0
	check := func(e Entry) {
		eq := subtle.ConstantTimeCompare(h[:], e.Hash[:])
		if eq == 1 && e.Kind == want && (e.Expires.IsZero() || now.Before(e.Expires)) {
			found = e
			ok = 1
		}
	}
	for _, e := range s.entries {
		check(e)
	}
	for _, e := range s.held {
		check(e)
	}
	return found, ok == 1
}

// ReadFile reads a token file, refusing one that other users can read.
func ReadFile(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if st.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("token file %s is readable by other users (mode %v); run chmod 600 on it", path, st.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	tok := strings.TrimSpace(string(b))
	if len(tok) != 2*Size {
		return "", fmt.Errorf("token file %s is malformed; delete it and restart the daemon to make a new one", path)
	}
	return tok, nil
}

// Ensure returns the token in path, creating it (0600, exclusive) if absent.
func Ensure(path string) (tok string, created bool, err error) {
	tok, err = ReadFile(path)
	if err == nil {
		return tok, false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", false, err
	}
	tok, err = New()
	if err != nil {
		return "", false, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", false, fmt.Errorf("create token file: %w", err)
	}
	if _, err := f.WriteString(tok + "\n"); err != nil {
		f.Close()
		return "", false, fmt.Errorf("write token file: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return "", false, fmt.Errorf("sync token file: %w", err)
	}
	return tok, true, f.Close()
}
