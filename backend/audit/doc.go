// Package audit is Gatehouse's append-only, hash-chained event timeline.
//
// Every event is a row in audit_events (migration 0001 in backend/db) that
// carries prev_hash and hash, where hash is SHA-256 over the previous hash and
// the event's canonical JSON (hash.go, canonical.go). Editing or deleting any
// row breaks the chain at that row, which Verify names.
//
// Use:
//
//	sqlDB, err := db.Open(ctx, filepath.Join(dataDir, "gatehouse.db"), logger)
//	store, err := audit.Open(ctx, sqlDB, logger, audit.Options{})
//	defer store.Close() // before sqlDB.Close()
//	e, err := store.Append(ctx, audit.Event{Session: id, Kind: "tool.call",
//		Actor: audit.AgentActor("claude-code"), Payload: redactedJSON})
//
// Append returns once the event is durable (fsynced). AppendWritten returns
// once it is in the database file, which survives the daemon being killed;
// Queue does not wait at all. Either is fsynced by the next Append's commit,
// which is how a tool call's rows share one fsync with its result. One
// writer goroutine batches concurrent appends into shared transactions;
// committed events are then
// fanned out to subscribers (Subscribe) without ever waiting for them. Query, Last,
// Export and Verify read from the database directly.
package audit
