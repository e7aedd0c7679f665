package session

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
)

// execBeforeEvent runs a write to the sessions table that an audit event
// committed durably follows at once (session.start after the row made,
// session.end after the row closed), without a disk wait of its own.
//
// Why it stays durable: both commit to one write-ahead log, the row's
// frames before the event's, and the event's commit (synchronous=FULL)
// syncs that whole file. A crash between the two loses a row whose event,
// and so whose session, nobody was told of. Every other connection in the
// pool keeps synchronous=FULL: one whose setting cannot be put back is
// dropped, never returned.
func execBeforeEvent(ctx context.Context, db *sql.DB, query string, args ...any) error {
	c, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, "PRAGMA synchronous=NORMAL"); err != nil {
		return fmt.Errorf("defer the row's sync to its event: %w", err)
	}
	_, err = c.ExecContext(ctx, query, args...)
	if _, rerr := c.ExecContext(context.WithoutCancel(ctx), "PRAGMA synchronous=FULL"); rerr != nil {
		_ = c.Raw(func(any) error { return driver.ErrBadConn })
	}
	return err
}
