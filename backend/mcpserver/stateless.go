package mcpserver

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/backend/session"
	"github.com/gatehouse-dev/gatehouse/backend/toolcall"
	"github.com/gatehouse-dev/gatehouse/backend/workspace"
)

// firstStatelessVersion is the protocol revision without sessions: each
// request carries its own client info, and there is no initialize.
const firstStatelessVersion = "2026-07-28"

// statelessIdle ends a stateless client's Gatehouse session after this long
// without a call.
const statelessIdle = 30 * time.Minute

// isStateless routes a request: new-protocol requests without an MCP
// session id go to the stateless handler, everything else to the stateful.
func isStateless(r *http.Request) bool {
	return r.Header.Get("Mcp-Session-Id") == "" && r.Header.Get("Mcp-Protocol-Version") >= firstStatelessVersion
}

// statelessSessions gives each stateless client (token and client name) one
// Gatehouse session, so its calls share grants, budgets and a timeline.
type statelessSessions struct {
	mu   sync.Mutex
	byID map[string]*statelessEntry
}

type statelessEntry struct {
	st   *toolcall.State
	last time.Time
}

func (s *Server) statelessState(ctx context.Context, req *mcp.CallToolRequest) (*toolcall.State, error) {
	client, tokenID := "unknown", ""
	if ex := req.Extra; ex != nil && ex.TokenInfo != nil {
		tokenID = ex.TokenInfo.UserID
		if n, ok := ex.TokenInfo.Extra["name"].(string); ok && n != "" {
			client = n
		}
	}
	var name, version string
	if req.Params != nil {
		if ci, ok := req.Params.GetMeta()[mcp.MetaKeyClientInfo].(map[string]any); ok {
			name, _ = ci["name"].(string)
			version, _ = ci["version"].(string)
		}
	}
	key := tokenID + "\x00" + name
	s.stateless.mu.Lock()
	defer s.stateless.mu.Unlock()
	if e, ok := s.stateless.byID[key]; ok && e.st.Live.Context().Err() == nil {
		e.last = time.Now()
		return e.st, nil
	}
	live, err := s.cfg.Sessions.Start(ctx, session.StartRequest{
		Client: client, ClientName: name, ClientVersion: version, Transport: "http-stateless",
		Workspaces: s.cfg.Workspaces, Mode: s.cfg.Mode,
	})
	if err != nil {
		return nil, err
	}
	roots, err := workspace.New(s.cfg.Workspaces...)
	if err != nil {
		s.cfg.Sessions.End(ctx, live.ID(), "workspace unavailable")
		return nil, err
	}
	st := toolcall.NewState(live, s.cfg.Workspaces, roots, s.cfg.Limits)
	s.stateless.byID[key] = &statelessEntry{st: st, last: time.Now()}
	go s.reapStateless(key, st)
	return st, nil
}

// reapStateless ends the session when it idles out or is killed.
func (s *Server) reapStateless(key string, st *toolcall.State) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-st.Live.Context().Done():
		case <-t.C:
			s.stateless.mu.Lock()
			e := s.stateless.byID[key]
			idle := e != nil && e.st == st && time.Since(e.last) > statelessIdle
			s.stateless.mu.Unlock()
			if !idle {
				continue
			}
			s.cfg.Sessions.End(context.Background(), st.Live.ID(), "stateless client idle")
		}
		s.stateless.mu.Lock()
		if e := s.stateless.byID[key]; e != nil && e.st == st {
			delete(s.stateless.byID, key)
		}
		s.stateless.mu.Unlock()
		st.Close(context.Background())
		return
	}
}
