package daemon

import (
	"context"

	"github.com/gatehouse-dev/gatehouse/backend/audit"
	"github.com/gatehouse-dev/gatehouse/backend/call"
)

// auditSink is the audit timeline as the call pipeline sees it
// (call.Audit): rows are redacted on the way in, like every event.
type auditSink struct{ d *Daemon }

func (a auditSink) Record(ctx context.Context, row call.Row) error {
	e, err := a.d.event(row.Kind, row.Actor, row.Session, row.Call, row.Payload)
	if err != nil {
		return err
	}
	if ann, ok := row.Expected.(*audit.Announcement); ok && ann != nil {
		_, err = ann.Append(context.WithoutCancel(ctx), e)
		return err
	}
	_, err = a.d.audit.Append(context.WithoutCancel(ctx), e)
	return err
}

func (a auditSink) RecordWritten(ctx context.Context, row call.Row) error {
	return a.d.RecordWritten(ctx, row.Kind, row.Actor, row.Session, row.Call, row.Payload)
}

func (a auditSink) Queue(ctx context.Context, row call.Row) {
	a.d.RecordAsync(ctx, row.Kind, row.Actor, row.Session, row.Call, row.Payload)
}

func (a auditSink) Expect() call.Expectation { return a.d.audit.Announce() }
