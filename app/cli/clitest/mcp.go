package clitest

import (
	"context"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/backend/httpgate"
	"github.com/gatehouse-dev/gatehouse/backend/transport/mcpserver"
)

// StatefulProtocol is the session-based MCP revision most agents speak
// today; TestStatelessClient covers the 2026-07-28 one.
const StatefulProtocol = "2025-11-25"

// MCP connects a real MCP client to the daemon with the agent token.
func (d *Daemon) MCP(ctx context.Context, name string) *mcp.ClientSession {
	d.t.Helper()
	return d.MCPOver(ctx, name, nil)
}

// MCPOver is MCP with the client's requests carried by base (a shared or
// counting transport; http.DefaultTransport when nil).
func (d *Daemon) MCPOver(ctx context.Context, name string, base http.RoundTripper) *mcp.ClientSession {
	d.t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1.0"}, nil)
	s, err := c.Connect(ctx, d.mcpTransport(base), &mcp.ClientSessionOptions{ProtocolVersion: StatefulProtocol})
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
func (d *Daemon) MCPTransport() *mcp.StreamableClientTransport { return d.mcpTransport(nil) }

func (d *Daemon) mcpTransport(base http.RoundTripper) *mcp.StreamableClientTransport {
	return &mcp.StreamableClientTransport{
		Endpoint:   "http://" + d.Addr + "/mcp",
		HTTPClient: &http.Client{Transport: httpgate.BearerTransport(d.Token("agent"), base)},
		MaxRetries: -1,
	}
}

// InDir carries an MCP client's requests as a client started in dir does
// through the stdio bridge: its project is the session's workspace.
func InDir(dir string, base http.RoundTripper) http.RoundTripper {
	return WithHeader(mcpserver.CwdHeader, dir, base)
}

// WithHeader carries an MCP client's requests with one header set, as the
// stdio bridge sets it (a nil base is the default transport).
func WithHeader(name, value string, base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return withHeader{name: name, value: value, base: base}
}

type withHeader struct {
	name, value string
	base        http.RoundTripper
}

func (t withHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(t.name, t.value)
	return t.base.RoundTrip(r)
}
