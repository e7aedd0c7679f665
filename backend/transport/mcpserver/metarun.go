package mcpserver

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/backend/session"
)

// Codex gives the MCP servers it starts no run id in their environment,
// but names its session in every tools/call's _meta (sessionId, the same
// id its hooks send). A Codex call on a session that names no run of its
// own (the stdio bridge's, a plain MCP session) joins that run, so the
// agent's MCP calls and its own tools share one session.

// codexRun is the Codex run a call names, if any.
func codexRun(req *mcp.CallToolRequest, clientName string) (session.RunKey, bool) {
	if req.Params == nil || !strings.HasPrefix(clientName, "codex") {
		return session.RunKey{}, false
	}
	id, _ := req.Params.GetMeta()["sessionId"].(string)
	if id == "" {
		return session.RunKey{}, false
	}
	k, err := session.ParseRunKey("codex:" + id)
	return k, err == nil
}

// runOfCall is the state a call runs in: the run its _meta names when the
// session itself names none, else the session's own.
func (s *Server) runOfCall(ctx context.Context, req *mcp.CallToolRequest, st *session.State) *session.State {
	info := st.Live.Snapshot()
	if info.Run != "" && !strings.HasPrefix(info.Run, session.BridgeAgent+":") {
		return st
	}
	k, ok := codexRun(req, info.ClientName)
	if !ok {
		return st
	}
	start := session.RunStart{Client: info.Client, ClientName: info.ClientName, ClientVersion: info.ClientVersion, Transport: info.Transport}
	if len(st.Workspaces) > 0 {
		// The run the call names works where its bridge's session does.
		start.Cwd = st.Workspaces[0]
	}
	if req.Extra != nil && req.Extra.TokenInfo != nil {
		start.Token = req.Extra.TokenInfo.UserID
	}
	joined, err := s.cfg.Runs.Use(ctx, k, start)
	if err != nil {
		s.cfg.Logger.Warn("join the Codex run the call names", "run", k.String(), "err", err)
		return st
	}
	return joined
}
