//go:build integration

package landlock

import (
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox/protect/protecttest"
)

// Under Landlock a protected link sits in the read-only workspace root,
// and its target is read-only too.
func TestProtectedSymlinks(t *testing.T) {
	b, err := New(Options{})
	if err != nil {
		t.Fatalf("landlock backend unavailable: %v", err)
	}
	protecttest.Symlinks(t, b)
}
