package daemon

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/datadir"
	"github.com/gatehouse-dev/gatehouse/backend/secrets"
	"github.com/gatehouse-dev/gatehouse/backend/token"
)

// fileTokenPrefix marks the ids of tokens that come from DATA/tokens/*.token
// (one per installed agent), so a sync revokes only those when their file
// goes, never a token the person made in the Connect screen.
const fileTokenPrefix = "tf_"

// syncAgentTokens registers every DATA/tokens/<name>.token as an agent token
// named <name>, and revokes file tokens whose file was deleted or replaced.
// A token revoked by the person stays revoked while its file lives on.
func syncAgentTokens(ctx context.Context, db *sql.DB, dataDir string) error {
	dir := filepath.Join(dataDir, datadir.TokensDir)
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("read %s: %w", dir, err)
	}
	now := time.Now().UnixNano()
	var hashes []any
	for _, e := range entries {
		name, ok := token.NameOfFile(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		tok, err := token.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return fmt.Errorf("agent token %s: %w", e.Name(), err)
		}
		h := token.HashHex(tok)
		hashes = append(hashes, h)
		if _, err := db.ExecContext(ctx, `INSERT INTO tokens (id, kind, name, hash, created_ns) VALUES (?,?,?,?,?) ON CONFLICT(hash) DO NOTHING`,
			fileTokenPrefix+strings.TrimPrefix(newTokenID(), "t_"), string(token.Agent), name, h, now); err != nil {
			return fmt.Errorf("register %s: %w", e.Name(), err)
		}
	}
	q := `UPDATE tokens SET revoked_ns=? WHERE kind='agent' AND revoked_ns IS NULL AND substr(id, 1, 3)=?`
	args := []any{now, fileTokenPrefix}
	if len(hashes) > 0 {
		q += ` AND hash NOT IN (?` + strings.Repeat(",?", len(hashes)-1) + `)`
		args = append(args, hashes...)
	}
	if _, err := db.ExecContext(ctx, q, args...); err != nil {
		return fmt.Errorf("revoke removed agent tokens: %w", err)
	}
	return nil
}

// agentTokenValues are the per-agent token files' values, for redaction.
func agentTokenValues(dataDir string) []secrets.Value {
	dir := filepath.Join(dataDir, datadir.TokensDir)
	entries, _ := os.ReadDir(dir)
	var out []secrets.Value
	for _, e := range entries {
		if name, ok := token.NameOfFile(e.Name()); ok {
			if tok, err := token.ReadFile(filepath.Join(dir, e.Name())); err == nil {
				out = append(out, secrets.Value{Name: "GATEHOUSE_AGENT_TOKEN_" + strings.ToUpper(name), Value: tok})
			}
		}
	}
	return out
}
