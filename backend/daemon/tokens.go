package daemon

import (
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/api"
	"github.com/gatehouse-dev/gatehouse/backend/datadir"
	"github.com/gatehouse-dev/gatehouse/backend/randid"
	"github.com/gatehouse-dev/gatehouse/backend/token"
)

// ensureTokens makes sure both token files exist and their hashes are
// registered, then loads every unrevoked token into set.
func ensureTokens(ctx context.Context, db *sql.DB, dataDir string, set *token.Set) error {
	for _, t := range []struct {
		file string
		kind token.Kind
		name string
	}{{datadir.AgentToken, token.Agent, "default"}, {datadir.ControlToken, token.Control, "control"}} {
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
	if err := syncAgentTokens(ctx, db, dataDir); err != nil {
		return err
	}
	return loadTokens(ctx, db, set)
}

func newTokenID() string { return randid.New("t_", 6) }

func loadTokens(ctx context.Context, db *sql.DB, set *token.Set) error {
	rows, err := db.QueryContext(ctx, `SELECT id, kind, name, hash, expires_ns FROM tokens WHERE revoked_ns IS NULL AND (expires_ns IS NULL OR expires_ns > ?)`, time.Now().UnixNano())
	if err != nil {
		return fmt.Errorf("load tokens: %w", err)
	}
	defer rows.Close()
	var entries []token.Entry
	for rows.Next() {
		var e token.Entry
		var kind, h string
		var exp sql.NullInt64
		if err := rows.Scan(&e.ID, &kind, &e.Name, &h, &exp); err != nil {
			return err
		}
		if exp.Valid {
			e.Expires = time.Unix(0, exp.Int64)
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

// tokenStore implements api.Tokens over the tokens table.
type tokenStore struct {
	db     *sql.DB
	set    *token.Set
	logins *token.OneTime
}

func (s *tokenStore) List(ctx context.Context) ([]api.TokenInfo, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, kind, name, created_ns, revoked_ns FROM tokens WHERE kind='agent' ORDER BY created_ns`)
	if err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	defer rows.Close()
	out := []api.TokenInfo{}
	for rows.Next() {
		var t api.TokenInfo
		var created int64
		var revoked sql.NullInt64
		if err := rows.Scan(&t.ID, &t.Kind, &t.Name, &created, &revoked); err != nil {
			return nil, err
		}
		t.CreatedAt = time.Unix(0, created).UTC()
		if revoked.Valid {
			r := time.Unix(0, revoked.Int64).UTC()
			t.RevokedAt = &r
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

func (s *tokenStore) Create(ctx context.Context, name string) (api.TokenInfo, string, error) {
	tok, err := token.New()
	if err != nil {
		return api.TokenInfo{}, "", err
	}
	info := api.TokenInfo{ID: newTokenID(), Kind: string(token.Agent), Name: name, CreatedAt: time.Now().UTC()}
	if _, err := s.db.ExecContext(ctx, `INSERT INTO tokens (id, kind, name, hash, created_ns) VALUES (?,?,?,?,?)`,
		info.ID, info.Kind, name, token.HashHex(tok), info.CreatedAt.UnixNano()); err != nil {
		return api.TokenInfo{}, "", fmt.Errorf("store token: %w", err)
	}
	return info, tok, loadTokens(ctx, s.db, s.set)
}

func (s *tokenStore) Revoke(ctx context.Context, id string) error {
	res, err := s.db.ExecContext(ctx, `UPDATE tokens SET revoked_ns=? WHERE id=? AND kind='agent' AND name<>'default' AND revoked_ns IS NULL`, time.Now().UnixNano(), id)
	if err != nil {
		return fmt.Errorf("revoke token: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return api.ErrTokenNotFound
	}
	return loadTokens(ctx, s.db, s.set)
}

// LoginTTL is how long a browser login link stays valid.
const LoginTTL = 12 * time.Hour

// CreateLogin mints a login link's code. It works once (RedeemLogin) and
// expires, and each `gatehouse open` makes a new one, so a leaked link is
// worth nothing once the person has used it or it has aged out.
func (s *tokenStore) CreateLogin(ctx context.Context) (string, time.Time, error) {
	code, err := token.New()
	if err != nil {
		return "", time.Time{}, err
	}
	exp := time.Now().Add(LoginTTL)
	s.logins.Add(code, exp)
	return code, exp, nil
}

// RedeemLogin uses up the link with this id and mints the browser's own
// control token, which lasts as long as the link would have.
func (s *tokenStore) RedeemLogin(ctx context.Context, id string) (string, time.Time, error) {
	exp, ok := s.logins.Take(id)
	if !ok {
		return "", time.Time{}, api.ErrLoginUsed
	}
	tok, err := token.New()
	if err != nil {
		return "", time.Time{}, err
	}
	now := time.Now()
	if _, err := s.db.ExecContext(ctx, `INSERT INTO tokens (id, kind, name, hash, created_ns, expires_ns) VALUES (?,?,?,?,?,?)`,
		newTokenID(), string(token.Control), "browser", token.HashHex(tok), now.UnixNano(), exp.UnixNano()); err != nil {
		return "", time.Time{}, fmt.Errorf("store login token: %w", err)
	}
	return tok, exp, loadTokens(ctx, s.db, s.set)
}
