package audit

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/db"
)

// Query limits.
const (
	DefaultLimit = 100
	MaxLimit     = 1000
)

// Filter selects events. Zero fields match everything.
type Filter struct {
	Session string // exact session id
	// Kind is an exact kind, or a prefix ending in "." ("tool.") matching
	// every kind below it.
	Kind  string
	Actor string    // exact actor
	Since time.Time // inclusive
	Until time.Time // exclusive
}

// Query is a filtered page of events. Pages are keyset-paginated by seq:
// pass the last seq you received as After (ascending) or Before (Newest).
type Query struct {
	Filter
	After  int64 // only seq > After
	Before int64 // only seq < Before; 0 = no bound
	Limit  int   // DefaultLimit when <= 0, capped at MaxLimit
	Newest bool  // newest first instead of oldest first
}

// Query returns one page of events matching q.
func (s *Store) Query(ctx context.Context, q Query) ([]Event, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)
	where, args := q.Filter.where(q.After, q.Before)
	order := "ASC"
	if q.Newest {
		order = "DESC"
	}
	rows, err := s.db.QueryContext(ctx, selectSQL+where+" ORDER BY seq "+order+" LIMIT ?", append(args, limit)...)
	if err != nil {
		return nil, db.Classify(fmt.Errorf("query audit events: %w", err))
	}
	defer rows.Close()
	out := make([]Event, 0, min(limit, 128))
	for rows.Next() {
		e, err := scanEvent(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, db.Classify(fmt.Errorf("query audit events: %w", err))
	}
	return out, nil
}

// Last returns the last n events matching f (n capped at MaxLimit), oldest
// first, e.g. the tail of one session.
func (s *Store) Last(ctx context.Context, n int, f Filter) ([]Event, error) {
	evs, err := s.Query(ctx, Query{Filter: f, Limit: n, Newest: true})
	if err != nil {
		return nil, err
	}
	for i, j := 0, len(evs)-1; i < j; i, j = i+1, j-1 {
		evs[i], evs[j] = evs[j], evs[i]
	}
	return evs, nil
}

const selectSQL = `SELECT seq, time_ns, session, call_id, kind, actor, payload, prev_hash, hash FROM audit_events`

// where builds the WHERE clause; only bound parameters carry user input.
func (f Filter) where(after, before int64) (string, []any) {
	var conds []string
	var args []any
	add := func(cond string, a ...any) {
		conds = append(conds, cond)
		args = append(args, a...)
	}
	if f.Session != "" {
		add("session = ?", f.Session)
	}
	if prefix, ok := strings.CutSuffix(f.Kind, "."); ok && prefix != "" {
		// "tool." matches kinds in ["tool.", "tool/"): '/' follows '.' in ASCII.
		add("kind >= ? AND kind < ?", prefix+".", prefix+"/")
	} else if f.Kind != "" {
		add("kind = ?", f.Kind)
	}
	if f.Actor != "" {
		add("actor = ?", f.Actor)
	}
	if !f.Since.IsZero() {
		add("time_ns >= ?", clampUnixNano(f.Since))
	}
	if !f.Until.IsZero() {
		add("time_ns < ?", clampUnixNano(f.Until))
	}
	if after > 0 {
		add("seq > ?", after)
	}
	if before > 0 {
		add("seq < ?", before)
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

var (
	minTime = time.Unix(0, -1<<63)
	maxTime = time.Unix(0, 1<<63-1)
)

// clampUnixNano keeps far-off bounds meaningful instead of overflowing.
func clampUnixNano(t time.Time) int64 {
	switch {
	case t.Before(minTime):
		return -1 << 63
	case t.After(maxTime):
		return 1<<63 - 1
	}
	return t.UnixNano()
}

type scanner interface{ Scan(dest ...any) error }

// scanEvent reads one row of selectSQL. Payload is returned as stored.
func scanEvent(r scanner) (Event, error) {
	var (
		e             Event
		ns            int64
		payload       string
		prevRaw, hRaw []byte
	)
	if err := r.Scan(&e.Seq, &ns, &e.Session, &e.CallID, &e.Kind, &e.Actor, &payload, &prevRaw, &hRaw); err != nil {
		return Event{}, db.Classify(fmt.Errorf("read audit event: %w", err))
	}
	e.Time = time.Unix(0, ns).UTC()
	e.Payload = []byte(payload)
	var err error
	if e.PrevHash, err = hexHash(prevRaw); err != nil {
		e.PrevHash = fmt.Sprintf("%x", prevRaw)
	}
	if e.Hash, err = hexHash(hRaw); err != nil {
		e.Hash = fmt.Sprintf("%x", hRaw)
	}
	return e, nil
}
