package export

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/db"
)

// cursor is where one sink stands: every event with seq <= Sent has been
// delivered to it at least once (migration 0011).
type cursor struct {
	Sent    int64
	SentAt  time.Time // zero before the first delivery
	Dropped int64
}

// loadCursor reads sink's cursor; a sink never seen starts at 0, so a newly
// configured sink receives the whole timeline (within the backlog bound).
func loadCursor(ctx context.Context, sqlDB *sql.DB, sink SinkName) (cursor, error) {
	var c cursor
	var ns int64
	err := sqlDB.QueryRowContext(ctx, "SELECT sent_seq, sent_ns, dropped FROM export_cursor WHERE sink = ?", string(sink)).Scan(&c.Sent, &ns, &c.Dropped)
	if errors.Is(err, sql.ErrNoRows) {
		return cursor{}, nil
	}
	if err != nil {
		return cursor{}, db.Classify(fmt.Errorf("read the %s export cursor: %w", sink, err))
	}
	if ns > 0 {
		c.SentAt = time.Unix(0, ns).UTC()
	}
	return c, nil
}

// saveCursor records c durably. It only ever moves forward: a write that
// would move it back (two daemons cannot share a data dir, so this is our
// own bug) leaves the stored cursor as it is.
func saveCursor(ctx context.Context, sqlDB *sql.DB, sink SinkName, c cursor) error {
	var ns int64
	if !c.SentAt.IsZero() {
		ns = c.SentAt.UnixNano()
	}
	_, err := sqlDB.ExecContext(ctx, `INSERT INTO export_cursor(sink, sent_seq, sent_ns, dropped) VALUES (?, ?, ?, ?)
		ON CONFLICT(sink) DO UPDATE SET sent_seq = excluded.sent_seq, sent_ns = excluded.sent_ns, dropped = excluded.dropped
		WHERE excluded.sent_seq >= export_cursor.sent_seq`, string(sink), c.Sent, ns, c.Dropped)
	if err != nil {
		return db.Classify(fmt.Errorf("save the %s export cursor: %w", sink, err))
	}
	return nil
}
