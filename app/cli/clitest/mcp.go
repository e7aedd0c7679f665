package clitest

import (
	"context"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bearer sends every request through base (http.DefaultTransport when
// nil) with the token in its Authorization header.
func Bearer(token string, base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return bearer{token, base}
}

type bearer struct {
	tok  string
	base http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.tok)
	return b.base.RoundTrip(r)
}

// StatefulProtocol is the session-based MCP revision most agents speak
// today; TestStatelessClient covers the 2026-07-28 one.
const StatefulProtocol = "2025-11-25"

// MCP connects a real MCP client to the daemon with the agent token.
func (d *Daemon) MCP(ctx context.Context, name string) *mcp.ClientSession {
	d.t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1.0"}, nil)
	s, err := c.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:   "http://" + d.Addr + "/mcp",
		HTTPClient: &http.Client{Transport: Bearer(d.Token("agent"), nil)},
		MaxRetries: -1,
	}, &mcp.ClientSessionOptions{ProtocolVersion: StatefulProtocol})
	if err != nil {
		d.t.Fatalf("connect MCP client: %v", err)
	}
	d.t.Cleanup(func() { s.Close() })
	return s
}

// Text is the first text content of a tool result.
func Text(t testing.TB, r *mcp.CallToolResult) string {
	t.Helper()
	if r == nil || len(r.Content) == 0 {
		t.Fatalf("empty tool result: %+v", r)
	}
	tc, ok := r.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("first content is %T", r.Content[0])
	}
	return tc.Text
}

// MCPTransport is a transport with the agent token, for custom clients.
func (d *Daemon) MCPTransport() mcp.Transport {
	return &mcp.StreamableClientTransport{
		Endpoint:   "http://" + d.Addr + "/mcp",
		HTTPClient: &http.Client{Transport: Bearer(d.Token("agent"), nil)},
		MaxRetries: -1,
	}
}
