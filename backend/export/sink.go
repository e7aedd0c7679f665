package export

import (
	"context"

	"github.com/gatehouse-dev/gatehouse/backend/audit"
)

// SinkName names a sink; it keys the sink's cursor in the database.
type SinkName string

// The sinks there are.
const (
	SinkOTLP SinkName = "otlp"
	SinkOCSF SinkName = "ocsf"
)

// Sink delivers a batch of audit events, oldest first. Send returns nil
// only once the whole batch is delivered (the cursor then moves past it);
// on error the same batch, or one starting at the same event, comes again.
type Sink interface {
	Name() SinkName
	// Target says where the sink delivers, for the status (never a secret:
	// endpoints with credentials are refused at configuration).
	Target() string
	Send(ctx context.Context, events []audit.Event) error
}
