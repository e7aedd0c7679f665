package db

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func TestLoadMigrations(t *testing.T) {
	tests := []struct {
		name    string
		files   fstest.MapFS
		want    []int
		wantErr string
	}{
		{
			name: "sorted by version",
			files: fstest.MapFS{
				"m/0002_b.sql":  {Data: []byte("SELECT 2")},
				"m/0010_c.sql":  {Data: []byte("SELECT 10")},
				"m/0001_a.sql":  {Data: []byte("SELECT 1")},
				"m/sub/x.sql":   {Data: []byte("ignored: directory")},
				"m/0003_ab.sql": {Data: []byte("SELECT 3")},
			},
			want: []int{1, 2, 3, 10},
		},
		{name: "bad name", files: fstest.MapFS{"m/1_a.sql": {}}, wantErr: "not named"},
		{name: "uppercase name", files: fstest.MapFS{"m/0001_A.sql": {}}, wantErr: "not named"},
		{name: "zero version", files: fstest.MapFS{"m/0000_a.sql": {}}, wantErr: "start at 0001"},
		{name: "duplicate", files: fstest.MapFS{"m/0001_a.sql": {}, "m/0001_b.sql": {}}, wantErr: "share version"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ms, err := loadMigrations(tc.files, "m")
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, m := range ms {
				got = append(got, m.Version)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("versions %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("versions %v, want %v", got, tc.want)
				}
			}
		})
	}
}

func TestEmbeddedMigrationsLoad(t *testing.T) {
	ms, err := Migrations()
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) == 0 || ms[0].Version != 1 || ms[0].Name != "audit" {
		t.Fatalf("embedded migrations = %+v", ms)
	}
}

func rawDB(t *testing.T) *sql.DB {
	t.Helper()
	sqlDB, err := sql.Open("sqlite3", dsn(filepath.Join(t.TempDir(), "m.db")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sqlDB.Close() })
	return sqlDB
}

func TestMigrateAppliesInOrderAndOnce(t *testing.T) {
	ctx := t.Context()
	sqlDB := rawDB(t)
	v1 := []Migration{
		{Version: 1, Name: "t", SQL: "CREATE TABLE t (x INTEGER);"},
		{Version: 2, Name: "u", SQL: "INSERT INTO t VALUES (1); INSERT INTO t VALUES (2);"},
	}
	if err := migrate(ctx, sqlDB, nil, v1); err != nil {
		t.Fatal(err)
	}
	// A later binary adds a file; the earlier ones must not run again.
	v2 := append(v1, Migration{Version: 3, Name: "v", SQL: "INSERT INTO t VALUES (3);"})
	if err := migrate(ctx, sqlDB, nil, v2); err != nil {
		t.Fatal(err)
	}
	var n, sum int
	if err := sqlDB.QueryRowContext(ctx, "SELECT count(*), sum(x) FROM t").Scan(&n, &sum); err != nil {
		t.Fatal(err)
	}
	if n != 3 || sum != 6 {
		t.Fatalf("t has %d rows summing to %d, want 3 and 6", n, sum)
	}
}

func TestFailedMigrationRollsBack(t *testing.T) {
	ctx := t.Context()
	sqlDB := rawDB(t)
	ms := []Migration{
		{Version: 1, Name: "ok", SQL: "CREATE TABLE a (x INTEGER);"},
		{Version: 2, Name: "bad", SQL: "CREATE TABLE b (x INTEGER); THIS IS NOT SQL;"},
	}
	if err := migrate(ctx, sqlDB, nil, ms); err == nil {
		t.Fatal("broken migration applied without error")
	}
	applied, err := appliedVersions(ctx, sqlDB)
	if err != nil {
		t.Fatal(err)
	}
	if !applied[1] || applied[2] {
		t.Fatalf("applied = %v, want only 1", applied)
	}
	var n int
	sqlDB.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE name = 'b'").Scan(&n)
	if n != 0 {
		t.Fatal("table from the failed migration survived its rollback")
	}
}

func TestMigrateRejectsUnknownOlderVersion(t *testing.T) {
	ctx := t.Context()
	sqlDB := rawDB(t)
	if err := migrate(ctx, sqlDB, nil, []Migration{{Version: 1, SQL: "SELECT 1"}, {Version: 2, SQL: "SELECT 1"}}); err != nil {
		t.Fatal(err)
	}
	err := migrate(ctx, sqlDB, nil, []Migration{{Version: 1, SQL: "SELECT 1"}, {Version: 3, SQL: "SELECT 1"}})
	if err == nil || !strings.Contains(err.Error(), "does not know") {
		t.Fatalf("err = %v", err)
	}
}
