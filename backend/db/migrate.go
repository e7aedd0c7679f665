package db

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"regexp"
	"sort"
	"strconv"
	"sync"
	"time"
)

// Migrations are plain SQL files named NNNN_name.sql; adding a file is all a
// schema change takes. They run in version order, each in its own transaction.
//
//go:embed migrations/*.sql
var migrationFS embed.FS

// ErrSchemaTooNew means the database was migrated by a newer binary.
var ErrSchemaTooNew = errors.New("the database was written by a newer version of Gatehouse; upgrade Gatehouse to open it")

// Migration is one embedded schema step.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

var migrationName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([0-9]{4})_([a-z0-9_]+)\.sql$`) })

// Migrations returns the embedded migrations in version order.
func Migrations() ([]Migration, error) {
	return loadMigrations(migrationFS, "migrations")
}

func loadMigrations(fsys fs.FS, dir string) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	var out []Migration
	seen := map[int]string{}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		m := migrationName().FindStringSubmatch(e.Name())
		if m == nil {
			return nil, fmt.Errorf("migration file %q is not named NNNN_name.sql", e.Name())
		}
		v, _ := strconv.Atoi(m[1])
		if v == 0 {
			return nil, fmt.Errorf("migration file %q: versions start at 0001", e.Name())
		}
		if prev, dup := seen[v]; dup {
			return nil, fmt.Errorf("migration files %q and %q share version %d", prev, e.Name(), v)
		}
		seen[v] = e.Name()
		body, err := fs.ReadFile(fsys, dir+"/"+e.Name())
		if err != nil {
			return nil, fmt.Errorf("read migration %s: %w", e.Name(), err)
		}
		out = append(out, Migration{Version: v, Name: m[2], SQL: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}

// SchemaVersion returns the highest version the binary knows.
func SchemaVersion() int {
	ms, err := Migrations()
	if err != nil || len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].Version
}

// Migrate applies the embedded migrations that the database lacks.
func Migrate(ctx context.Context, sqlDB *sql.DB, logger *slog.Logger) error {
	ms, err := Migrations()
	if err != nil {
		return err
	}
	return migrate(ctx, sqlDB, logger, ms)
}

const createSchemaMigrations = `CREATE TABLE IF NOT EXISTS schema_migrations (
	version    INTEGER PRIMARY KEY,
	name       TEXT NOT NULL,
	applied_at TEXT NOT NULL
) STRICT`

func migrate(ctx context.Context, sqlDB *sql.DB, logger *slog.Logger, ms []Migration) error {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if _, err := sqlDB.ExecContext(ctx, createSchemaMigrations); err != nil {
		return Classify(fmt.Errorf("create schema_migrations: %w", err))
	}
	known := map[int]bool{}
	latest := 0
	for _, m := range ms {
		known[m.Version] = true
		latest = m.Version
	}
	applied, err := appliedVersions(ctx, sqlDB)
	if err != nil {
		return err
	}
	for v := range applied {
		if v > latest {
			return fmt.Errorf("%w (database schema %d, this binary knows up to %d)", ErrSchemaTooNew, v, latest)
		}
		if !known[v] {
			return fmt.Errorf("database has schema migration %d that this binary does not know; use the Gatehouse version that created it", v)
		}
	}
	for _, m := range ms {
		if applied[m.Version] {
			continue
		}
		if err := applyOne(ctx, sqlDB, logger, m); err != nil {
			return err
		}
	}
	return nil
}

func appliedVersions(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}) (map[int]bool, error) {
	rows, err := q.QueryContext(ctx, "SELECT version FROM schema_migrations")
	if err != nil {
		return nil, Classify(fmt.Errorf("read schema_migrations: %w", err))
	}
	defer rows.Close()
	out := map[int]bool{}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return nil, fmt.Errorf("read schema_migrations: %w", err)
		}
		out[v] = true
	}
	return out, rows.Err()
}

// applyOne runs one migration in an IMMEDIATE transaction and re-checks that
// it is still pending inside it, so two processes opening the same database
// at once apply each step exactly once.
func applyOne(ctx context.Context, sqlDB *sql.DB, logger *slog.Logger, m Migration) error {
	tx, err := sqlDB.BeginTx(ctx, nil)
	if err != nil {
		return Classify(fmt.Errorf("begin migration %04d: %w", m.Version, err))
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM schema_migrations WHERE version = ?", m.Version).Scan(&n); err != nil {
		return Classify(fmt.Errorf("check migration %04d: %w", m.Version, err))
	}
	if n > 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
		return Classify(fmt.Errorf("apply migration %04d_%s: %w", m.Version, m.Name, err))
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, ?, ?)",
		m.Version, m.Name, time.Now().UTC().Format(time.RFC3339Nano)); err != nil {
		return Classify(fmt.Errorf("record migration %04d: %w", m.Version, err))
	}
	if err := tx.Commit(); err != nil {
		return Classify(fmt.Errorf("commit migration %04d: %w", m.Version, err))
	}
	logger.Info("applied database migration", "version", m.Version, "name", m.Name)
	return nil
}
