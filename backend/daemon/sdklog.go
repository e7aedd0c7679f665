package daemon

import (
	"context"
	"log/slog"
)

// quietInfo lowers INFO records to DEBUG. The MCP SDK logs three INFO
// lines per connection (connecting, connected, initialized) and one per
// disconnect; the session manager logs the one line a person wants
// ("agent connected"), and the SDK's stay available with --log-level debug.
func quietInfo(l *slog.Logger) *slog.Logger { return slog.New(demoteInfo{l.Handler()}) }

type demoteInfo struct{ h slog.Handler }

func (d demoteInfo) Enabled(ctx context.Context, level slog.Level) bool {
	return d.h.Enabled(ctx, lowered(level))
}

func (d demoteInfo) Handle(ctx context.Context, r slog.Record) error {
	r.Level = lowered(r.Level)
	return d.h.Handle(ctx, r)
}

func (d demoteInfo) WithAttrs(attrs []slog.Attr) slog.Handler {
	return demoteInfo{d.h.WithAttrs(attrs)}
}
func (d demoteInfo) WithGroup(name string) slog.Handler { return demoteInfo{d.h.WithGroup(name)} }

func lowered(l slog.Level) slog.Level {
	if l == slog.LevelInfo {
		return slog.LevelDebug
	}
	return l
}
