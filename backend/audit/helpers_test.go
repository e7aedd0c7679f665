package audit

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/db"
)

func openTestDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	sqlDB, err := db.Open(t.Context(), path, nil)
	if err != nil {
		t.Fatalf("db.Open: %v", err)
	}
	t.Cleanup(func() { sqlDB.Close() })
	return sqlDB
}

// newTestStore opens a fresh store in a temp dir; it is closed at cleanup.
func newTestStore(t testing.TB) (*Store, *sql.DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "gatehouse.db")
	sqlDB := openTestDB(t, path)
	s, err := Open(t.Context(), sqlDB, nil, Options{})
	if err != nil {
		t.Fatalf("audit.Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s, sqlDB, path
}

func ev(session, kind, actor, payload string) Event {
	return Event{Session: session, Kind: kind, Actor: actor, Payload: []byte(payload)}
}
