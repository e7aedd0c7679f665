package mcpserver

import (
	"context"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/backend/session"
)

// firstStatelessVersion is the protocol revision without sessions: each
// request carries its own client info, and there is no initialize.
const firstStatelessVersion = "2026-07-28"

// isStateless routes a request: new-protocol requests without an MCP
// session id go to the stateless handler, everything else to the stateful.
func isStateless(r *http.Request) bool {
	return r.Header.Get("Mcp-Session-Id") == "" && r.Header.Get("Mcp-Protocol-Version") >= firstStatelessVersion
}

// statelessState is the session of a stateless request: the run the
// request names (the stdio bridge names its agent's run), or else one
// session per token and client name. Such a client's separate runs cannot
// be told apart, so its session offers no "allow for this session".
func (s *Server) statelessState(ctx context.Context, req *mcp.CallToolRequest) (*session.State, error) {
	start := session.RunStart{Client: "unknown", Transport: "http-stateless"}
	var hdr http.Header
	if ex := req.Extra; ex != nil {
		hdr = ex.Header
		if ex.TokenInfo != nil {
			start.Token = ex.TokenInfo.UserID
			if n, ok := ex.TokenInfo.Extra["name"].(string); ok && n != "" {
				start.Client = n
			}
		}
	}
	if req.Params != nil {
		if ci, ok := req.Params.GetMeta()[mcp.MetaKeyClientInfo].(map[string]any); ok {
			start.ClientName, _ = ci["name"].(string)
			start.ClientVersion, _ = ci["version"].(string)
		}
	}
	start.Cwd = cwdOf(hdr)
	key, named, err := runKey(hdr)
	if err != nil {
		return nil, err
	}
	switch {
	case named && hdr.Get(TransportHeader) == "stdio":
		start.Transport = "stdio"
	case !named:
		key = session.RunKey{Agent: "stateless", ID: start.Token + "\x00" + start.ClientName}
		start.NoSessionGrants = true
	}
	return s.cfg.Runs.Use(ctx, key, start)
}
