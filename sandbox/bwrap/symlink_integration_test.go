//go:build integration

package bwrap

import (
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox/protect/protecttest"
)

// bwrap pins a protected link with a mount of itself and covers its target.
func TestProtectedSymlinks(t *testing.T) {
	b, err := New(t.Context(), Options{})
	if err != nil {
		t.Fatalf("bwrap backend unavailable: %v", err)
	}
	protecttest.Symlinks(t, b)
}
