// Package db opens Gatehouse's SQLite database with the settings the audit
// trail depends on, and brings its schema up to date.
package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	// Registers the "sqlite3" driver (also used directly in storage_errors.go).
	_ "github.com/mattn/go-sqlite3"
)

// BusyTimeoutMS is how long a connection waits for another writer's lock
// before giving up with SQLITE_BUSY.
const BusyTimeoutMS = 10000

// StmtCacheSize is how many prepared statements each connection keeps.
const StmtCacheSize = 64

// Open opens (creating if needed) the database at path, checks that the
// durability settings took effect, and applies pending migrations.
//
// Every pooled connection gets WAL, foreign keys, a busy timeout and
// synchronous=FULL from the DSN, so a commit that returned is on disk.
// Transactions begin IMMEDIATE so writers queue on the busy timeout instead of
// failing on a lock upgrade.
func Open(ctx context.Context, path string, logger *slog.Logger) (*sql.DB, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if path == "" {
		return nil, errors.New("no database path was given; pass the data directory's gatehouse.db")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("resolve database path: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, Classify(fmt.Errorf("create database directory: %w", err))
	}
	// SQLite gives the -wal and -shm files the main file's mode, so creating
	// it 0600 first keeps all three private from other users.
	f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, Classify(fmt.Errorf("open database file: %w", err))
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("close database file: %w", err)
	}

	sqlDB, err := sql.Open("sqlite3", dsn(abs))
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	if err := checkSettings(ctx, sqlDB); err != nil {
		sqlDB.Close()
		return nil, err
	}
	if err := Migrate(ctx, sqlDB, logger); err != nil {
		sqlDB.Close()
		return nil, err
	}
	return sqlDB, nil
}

// dsn builds a file: URI so that paths containing '?', '#' or '%' reach
// SQLite intact instead of being parsed as parameters.
func dsn(abs string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	q := url.Values{}
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "FULL")
	q.Set("_foreign_keys", "on")
	q.Set("_busy_timeout", fmt.Sprint(BusyTimeoutMS))
	q.Set("_txlock", "immediate")
	// Per-connection prepared-statement cache: hot statements (the audit
	// insert, the tail queries) skip SQLite's parser after first use.
	q.Set("_stmt_cache_size", fmt.Sprint(StmtCacheSize))
	return u.String() + "?" + q.Encode()
}

// checkSettings reads back the pragmas, because SQLite silently keeps the old
// journal mode when it cannot switch (e.g. on some network file systems).
func checkSettings(ctx context.Context, sqlDB *sql.DB) error {
	conn, err := sqlDB.Conn(ctx)
	if err != nil {
		return Classify(fmt.Errorf("connect to database: %w", err))
	}
	defer conn.Close()
	var mode string
	if err := conn.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return Classify(fmt.Errorf("read journal mode: %w", err))
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("the database could not switch to WAL mode (it is %q); keep the data directory on a local disk", mode)
	}
	var syncMode, fk int
	if err := conn.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&syncMode); err != nil {
		return fmt.Errorf("read synchronous mode: %w", err)
	}
	if syncMode != 2 {
		return fmt.Errorf("database synchronous mode is %d, want 2 (FULL)", syncMode)
	}
	if err := conn.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil {
		return fmt.Errorf("read foreign_keys: %w", err)
	}
	if fk != 1 {
		return errors.New("database foreign keys are off, want on")
	}
	return nil
}
