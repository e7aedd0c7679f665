package audit

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// bulkLoad appends n synthetic events through insertEvents (the writer's own
// chaining and insert code) in 100,000-event transactions.
func bulkLoad(ctx context.Context, sqlDB *sql.DB, n, sessions int) error {
	kinds := []string{"session.start", "tool.call", "policy.decision", "approval.request",
		"approval.decision", "tool.result", "checkpoint.create", "session.end"}
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var h hasher
	const chunk = 100_000
	for done := 0; done < n; done += chunk {
		events := make([]Event, min(chunk, n-done))
		for i := range events {
			k := done + i
			e, err := prepare(Event{
				Time:    base.Add(time.Duration(k) * time.Millisecond),
				Session: fmt.Sprintf("session-%04d", k%sessions),
				CallID:  fmt.Sprintf("call-%d", k),
				Kind:    kinds[k%len(kinds)],
				Actor:   "agent:claude-code",
				Payload: []byte(fmt.Sprintf(`{"argv":["go","test","./..."],"n":%d}`, k)),
			})
			if err != nil {
				return err
			}
			events[i] = e
		}
		tx, err := sqlDB.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		seq, prev, err := readHead(ctx, tx)
		if err == nil {
			err = insertEvents(ctx, tx, events, seq, prev, time.Now(), &h)
		}
		if err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}
