// Package randid names things nobody should guess or collide with: a
// prefix that says what it names, then random bytes in hex (sessions'
// plans, approvals, tokens, tickets, bridge agents).
package randid

import (
	"crypto/rand"
	"encoding/hex"
)

// New is prefix followed by n random bytes in hex.
func New(prefix string, n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails on the platforms Gatehouse runs on
	return prefix + hex.EncodeToString(b)
}
