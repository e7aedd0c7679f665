package db

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestOpenAppliesSettingsAndMigrations(t *testing.T) {
	ctx := t.Context()
	// Characters that would be parsed as DSN syntax must reach SQLite intact.
	path := filepath.Join(t.TempDir(), "odd dir ?#%", "gatehouse.db")
	sqlDB, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer sqlDB.Close()

	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("database file not at the given path: %v", err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("database file mode %o, want 600", perm)
	}
	for _, tc := range []struct {
		pragma string
		want   string
	}{
		{"journal_mode", "wal"},
		{"synchronous", "2"},
		{"foreign_keys", "1"},
		{"busy_timeout", "10000"},
	} {
		// Ask several pooled connections: each must carry the settings.
		for i := 0; i < 3; i++ {
			conn, err := sqlDB.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			var got string
			if err := conn.QueryRowContext(ctx, "PRAGMA "+tc.pragma).Scan(&got); err != nil {
				t.Fatalf("PRAGMA %s: %v", tc.pragma, err)
			}
			if got != tc.want {
				t.Errorf("PRAGMA %s = %q, want %q", tc.pragma, got, tc.want)
			}
		}
	}
	var n int
	if err := sqlDB.QueryRowContext(ctx, "SELECT count(*) FROM schema_migrations").Scan(&n); err != nil {
		t.Fatal(err)
	}
	ms, _ := Migrations()
	if n != len(ms) {
		t.Errorf("schema_migrations has %d rows, want %d", n, len(ms))
	}
}

func TestReopenIsIdempotent(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "gatehouse.db")
	for i := 0; i < 3; i++ {
		sqlDB, err := Open(ctx, path, nil)
		if err != nil {
			t.Fatalf("Open #%d: %v", i, err)
		}
		sqlDB.Close()
	}
}

func TestOpenRejectsNewerSchema(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "gatehouse.db")
	sqlDB, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sqlDB.ExecContext(ctx, "INSERT INTO schema_migrations VALUES (?, 'future', '')", SchemaVersion()+1); err != nil {
		t.Fatal(err)
	}
	sqlDB.Close()
	_, err = Open(ctx, path, nil)
	if !errors.Is(err, ErrSchemaTooNew) {
		t.Fatalf("Open on a newer database = %v, want ErrSchemaTooNew", err)
	}
}

func TestOpenRejectsEmptyPath(t *testing.T) {
	if _, err := Open(t.Context(), "", nil); err == nil {
		t.Fatal("Open(\"\") succeeded")
	}
}
