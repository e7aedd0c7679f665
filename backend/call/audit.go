package call

import "context"

// Audit is the timeline a call's rows go to. It has one ordered writer: a
// row never becomes durable before the rows recorded ahead of it, so a
// call's final Record makes all of its earlier rows durable too.
type Audit interface {
	// Record appends row and returns once it is durable.
	Record(ctx context.Context, row Row) error
	// RecordWritten returns once row is in the database (it survives the
	// daemon being killed); the next Record's commit makes it durable, so
	// its fsync overlaps the call's own work.
	RecordWritten(ctx context.Context, row Row) error
	// Queue appends row behind the earlier ones without waiting.
	Queue(ctx context.Context, row Row)
	// Expect announces a Record coming shortly from a quick read, so that a
	// commit about to wait for the disk holds on and shares its fsync.
	// Recording a row that carries the expectation settles it; Settle
	// withdraws it.
	Expect() Expectation
}

// Expectation is a Record announced ahead (see Audit.Expect).
type Expectation interface{ Settle() }

// Row is one audit event of a call.
type Row struct {
	Kind, Actor, Session, Call string
	Payload                    any
	// Expected, if set, is settled by recording this row.
	Expected Expectation
}

// record queues an intermediate row of the call; the call's final row waits
// for the durability of everything before it.
func (r *Runner) record(ctx context.Context, c *InFlight, kind, actor string, payload map[string]any) {
	r.flushHeld(ctx, c)
	r.queue(ctx, c, kind, actor, payload)
}

// queue is record without writing the call's held rows first.
func (r *Runner) queue(ctx context.Context, c *InFlight, kind, actor string, payload map[string]any) {
	r.deps.Audit.Queue(context.WithoutCancel(ctx), Row{Kind: kind, Actor: actor, Session: c.Session(), Call: c.ID, Payload: payload})
}

// recordSync appends a row and waits for it; a failure is logged.
func (r *Runner) recordSync(ctx context.Context, c *InFlight, kind, actor string, payload map[string]any) {
	r.flushHeld(ctx, c)
	if err := r.deps.Audit.Record(context.WithoutCancel(ctx), Row{Kind: kind, Actor: actor, Session: c.Session(), Call: c.ID, Payload: payload}); err != nil {
		r.deps.Logger.Error("audit append", "kind", kind, "call", c.ID, "err", err)
	}
}
