package session

import (
	"testing"
)

// The rows whose sync rides on their event leave no connection in the
// pool that skips the disk: every later commit still waits for it.
func TestRowSyncLeavesThePoolDurable(t *testing.T) {
	ctx := t.Context()
	m, _ := newManager(t)
	m.db.SetMaxOpenConns(1) // the one connection the rows were written on
	l, err := m.Start(ctx, StartRequest{Client: "default", Transport: "http", Workspaces: []string{"/ws"}})
	if err != nil {
		t.Fatal(err)
	}
	m.End(ctx, l.ID(), "client disconnected")
	var mode int
	if err := m.db.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != 2 {
		t.Fatalf("synchronous = %d after a session's rows, want 2 (FULL)", mode)
	}
	got, err := m.Lookup(ctx, l.ID())
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != Ended {
		t.Fatalf("status %q, want the ended row", got.Status)
	}
}
