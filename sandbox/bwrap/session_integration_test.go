//go:build integration

package bwrap

import (
	"context"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// openSession opens a session of a new backend, closed when the test ends.
func openSession(t *testing.T, spec sandbox.SessionSpec) sandbox.Session {
	t.Helper()
	b, err := New(t.Context(), Options{})
	if err != nil {
		t.Fatalf("bwrap backend unavailable: %v", err)
	}
	s, err := b.Open(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	// The test's context is cancelled before its cleanups run.
	t.Cleanup(func() { s.Close(context.WithoutCancel(t.Context())) })
	return s
}
