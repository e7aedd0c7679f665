package mcpserver

import (
	"context"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// progressFor reports progress on the request while a call waits for the
// person, when the client asked for progress (a progress token): a client
// that resets its request timeout on progress then waits for the card
// instead of giving up. nil when the client did not ask.
func progressFor(ctx context.Context, req *mcp.CallToolRequest) func(string) {
	if req == nil || req.Params == nil || req.Session == nil {
		return nil
	}
	tok := req.Params.GetProgressToken()
	if tok == nil {
		return nil
	}
	var n atomic.Int64
	return func(msg string) {
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Message: msg, Progress: float64(n.Add(1))})
	}
}
