package calltest

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/gatehouse-dev/gatehouse/backend/call"
)

// Row is one audit row as a test reads it.
type Row struct {
	Kind, Actor, Call string
	Payload           map[string]any
}

// Audit is the test's audit timeline (call.Audit), kept in memory; every
// row is written at once, so nothing waits.
type Audit struct {
	mu   sync.Mutex
	list []Row
}

func (a *Audit) add(kind, actor, callID string, payload any) {
	b, _ := json.Marshal(payload)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	a.mu.Lock()
	a.list = append(a.list, Row{kind, actor, callID, m})
	a.mu.Unlock()
}

// Record keeps a row.
func (a *Audit) Record(_ context.Context, row call.Row) error {
	a.add(row.Kind, row.Actor, row.Call, row.Payload)
	return nil
}

// RecordWritten keeps a row (it is durable at once).
func (a *Audit) RecordWritten(ctx context.Context, row call.Row) error { return a.Record(ctx, row) }

// Queue keeps a row.
func (a *Audit) Queue(ctx context.Context, row call.Row) { _ = a.Record(ctx, row) }

// Expect has nothing to wait for.
func (a *Audit) Expect() call.Expectation { return settled{} }

type settled struct{}

func (settled) Settle() {}

// ForCall returns the kinds recorded for one call, in order, and the rows.
func (a *Audit) ForCall(id string) ([]string, []Row) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var kinds []string
	var out []Row
	for _, x := range a.list {
		if x.Call == id {
			kinds = append(kinds, x.Kind)
			out = append(out, x)
		}
	}
	return kinds, out
}
