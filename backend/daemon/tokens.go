package daemon

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/token"
)

// ensureTokens makes sure both token files exist and their hashes are
// registered, then loads every unrevoked token into set.
func ensureTokens(ctx context.Context, db *sql.DB, dataDir string, set *token.Set) error {
	for _, t := range []struct {
		file string
		kind token.Kind
		name string
	}{{AgentToken, token.Agent, "default"}, {ControlToken, token.Control, "control"}} {
		tok, _, err := token.Ensure(filepath.Join(dataDir, t.file))
		if err != nil {
			return fmt.Errorf("%s: %w", t.file, err)
		}
		h := token.HashHex(tok)
		// Deleting a token file rotates it: the old hash stops working.
		if _, err := db.ExecContext(ctx, `UPDATE tokens SET revoked_ns=? WHERE kind=? AND name=? AND hash<>? AND revoked_ns IS NULL`,
			time.Now().UnixNano(), string(t.kind), t.name, h); err != nil {
			return fmt.Errorf("rotate %s: %w", t.file, err)
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO tokens (id, kind, name, hash, created_ns) VALUES (?,?,?,?,?) ON CONFLICT(hash) DO NOTHING`,
			newTokenID(), string(t.kind), t.name, h, time.Now().UnixNano()); err != nil {
			return fmt.Errorf("register %s: %w", t.file, err)
		}
	}
	return loadTokens(ctx, db, set)
}

func newTokenID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "t_" + hex.EncodeToString(b)
}

func loadTokens(ctx context.Context, db *sql.DB, set *token.Set) error {
	rows, err := db.QueryContext(ctx, `SELECT id, kind, name, hash FROM tokens WHERE revoked_ns IS NULL`)
	if err != nil {
		return fmt.Errorf("load tokens: %w", err)
	}
	defer rows.Close()
	var entries []token.Entry
	for rows.Next() {
		var e token.Entry
		var kind, h string
		if err := rows.Scan(&e.ID, &kind, &e.Name, &h); err != nil {
			return err
		}
		raw, err := hex.DecodeString(h)
		if err != nil || len(raw) != len(e.Hash) {
			return fmt.Errorf("token %s has a malformed hash", e.ID)
		}
		copy(e.Hash[:], raw)
		e.Kind = token.Kind(kind)
		entries = append(entries, e)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	set.Replace(entries)
	return nil
}
