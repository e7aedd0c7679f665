package egress

import (
	"context"
	"time"
)

// A Recorder keeps the audit record of every connection the proxy
// handled, refused ones included. It is called once per connection,
// after it has ended.
type Recorder interface {
	Connection(ctx context.Context, c Connection)
}

// Connection is the record of one connection.
type Connection struct {
	Session string
	Call    string
	Domain  string // as asked; empty when the request could not be read
	Port    int
	// Method is CONNECT for a tunnel, else the plain request's method.
	Method string
	// Addr is the address dialled; empty when refused before that.
	Addr string
	// BytesUp went from the run to the server, BytesDown came back.
	BytesUp   int64
	BytesDown int64
	Duration  time.Duration
	// Refused says why the proxy refused the connection; empty otherwise.
	Refused string
	// Process names the process that connected (RunInfo.Labelled).
	Process string
}
