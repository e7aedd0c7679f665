package session

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// ListFilter selects sessions, newest first.
type ListFilter struct {
	Status Status
	Limit  int
	Before time.Time // keyset: sessions started strictly before this
}

const cols = `id, client, client_name, client_version, transport, workspaces, mode, started_ns, ended_ns, status, end_reason, calls, allowed, asked, denied, errors, output_bytes, cpu_ms, run, goal, outcomes, confined`

// List returns session history from the database; live sessions carry
// their in-memory counters.
func (m *Manager) List(ctx context.Context, f ListFilter) ([]Info, error) {
	if f.Limit <= 0 || f.Limit > 1000 {
		f.Limit = 100
	}
	q := `SELECT ` + cols + ` FROM sessions WHERE 1=1`
	var args []any
	if f.Status != "" {
		q += ` AND status = ?`
		args = append(args, string(f.Status))
	}
	if !f.Before.IsZero() {
		q += ` AND started_ns < ?`
		args = append(args, f.Before.UnixNano())
	}
	q += ` ORDER BY started_ns DESC LIMIT ?`
	args = append(args, f.Limit)
	rows, err := m.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	defer rows.Close()
	out := []Info{}
	for rows.Next() {
		i, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m.overlay(i))
	}
	return out, rows.Err()
}

// Lookup returns one session, live or historical.
func (m *Manager) Lookup(ctx context.Context, id string) (Info, error) {
	row := m.db.QueryRowContext(ctx, `SELECT `+cols+` FROM sessions WHERE id = ?`, id)
	i, err := scan(row)
	if errors.Is(err, sql.ErrNoRows) {
		return Info{}, ErrNotFound
	}
	if err != nil {
		return Info{}, err
	}
	return m.overlay(i), nil
}

func (m *Manager) overlay(i Info) Info {
	if l, ok := m.Get(i.ID); ok {
		return l.Snapshot()
	}
	return i
}

type scanner interface{ Scan(...any) error }

func scan(r scanner) (Info, error) {
	var i Info
	var ws string
	var started int64
	var ended sql.NullInt64
	var st, outcomes string
	err := r.Scan(&i.ID, &i.Client, &i.ClientName, &i.ClientVersion, &i.Transport, &ws, &i.Mode, &started, &ended, &st, &i.EndReason,
		&i.Calls, &i.Allowed, &i.Asked, &i.Denied, &i.Errors, &i.OutputBytes, &i.CPUMillis, &i.Run, &i.Goal, &outcomes, &i.Confined)
	if err != nil {
		return i, err
	}
	i.Status = Status(st)
	i.StartedAt = time.Unix(0, started).UTC()
	if ended.Valid {
		t := time.Unix(0, ended.Int64).UTC()
		i.EndedAt = &t
	}
	if err := json.Unmarshal([]byte(ws), &i.Workspaces); err != nil {
		return i, fmt.Errorf("session %s: bad workspaces column: %w", i.ID, err)
	}
	if err := json.Unmarshal([]byte(outcomes), &i.Outcomes); err != nil {
		return i, fmt.Errorf("session %s: bad outcomes column: %w", i.ID, err)
	}
	return i, nil
}

// tallyJSON is the outcomes column.
func tallyJSON(t Tally) string {
	b, _ := json.Marshal(t)
	return string(b)
}
