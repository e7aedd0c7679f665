// Package mcpserver serves the agent-facing MCP endpoint (Streamable HTTP at
// /mcp, stateful). Each MCP session is a Gatehouse session; every tool call
// goes through call.Runner. Nothing here can approve, kill, roll back or
// change policy: those are control-API-only.
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/backend/call"
	"github.com/gatehouse-dev/gatehouse/backend/session"
	"github.com/gatehouse-dev/gatehouse/backend/token"
)

// Config wires the server to the daemon.
type Config struct {
	Sessions *session.Manager
	// Runs gives each agent run its Gatehouse session (shared with the
	// agent's hooks).
	Runs    *session.Runs
	Tokens  *token.Set
	Runner  *call.Runner
	Version string
	Logger  *slog.Logger
	// IdleTimeout closes MCP sessions with no requests for this long.
	IdleTimeout time.Duration
	// Routes are further agent-capability routes under /mcp/ (the hooks'),
	// served behind the same token check.
	Routes map[string]http.Handler
}

// Server is the MCP endpoint.
type Server struct {
	cfg     Config
	server  *mcp.Server
	handler http.Handler

	mu     sync.Mutex
	states map[string]*openSession // by MCP session id

	posts postWatch
}

// TransportHeader lets the stdio bridge mark its sessions.
const TransportHeader = "X-Gatehouse-Transport"

// New builds the MCP server and its HTTP handler.
func New(cfg Config) *Server {
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = 6 * time.Hour
	}
	s := &Server{cfg: cfg, states: map[string]*openSession{}, posts: postWatch{posts: map[string]context.Context{}}}
	s.server = mcp.NewServer(&mcp.Implementation{Name: "gatehouse", Title: "Gatehouse", Version: cfg.Version}, &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       cfg.Logger,
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
		RootsListChangedHandler: func(ctx context.Context, req *mcp.RootsListChangedRequest) {
			s.rootsChanged(ctx, req)
		},
	})
	s.server.AddReceivingMiddleware(s.sessionMiddleware)
	for _, t := range cfg.Runner.Tools() {
		s.server.AddTool(&mcp.Tool{
			Name:         t.Name,
			Title:        t.Title,
			Description:  t.Description,
			InputSchema:  t.Schema,
			OutputSchema: t.OutputSchema,
			Annotations:  &mcp.ToolAnnotations{Title: t.Title, ReadOnlyHint: t.ReadOnly, OpenWorldHint: boolPtr(t.Name == "fetch_url")},
		}, s.callHandler(t.Name))
	}
	getServer := func(*http.Request) *mcp.Server { return s.server }
	// Idle sessions are closed by openSession's own timer, which sees the
	// calls answered directly too (direct.go). The SDK's, four times as
	// long, only reaps sessions Gatehouse never opened (a failed
	// initialize); any call through the SDK restarts it anyway.
	stateful := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		Logger:              cfg.Logger,
		SessionTimeout:      4 * cfg.IdleTimeout,
		MaxRequestBodyBytes: maxBodyBytes,
	})
	// The same endpoint also answers 2026-07-28 clients, which have no
	// sessions; the SDK serves them only from a stateless handler.
	stateless := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		Logger:              cfg.Logger,
		Stateless:           true,
		MaxRequestBodyBytes: maxBodyBytes,
	})
	stream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isStateless(r) {
			stateless.ServeHTTP(w, r)
			return
		}
		stateful.ServeHTTP(w, r)
	})
	// The gate already checked the agent token; this hands the SDK the
	// token's identity so a session cannot be used with another token.
	verify := func(ctx context.Context, tok string, r *http.Request) (*auth.TokenInfo, error) {
		e, ok := cfg.Tokens.Match(tok, token.Agent)
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: e.ID, Extra: map[string]any{"name": e.Name}, Expiration: time.Now().Add(24 * time.Hour)}, nil
	}
	bearer := auth.RequireBearerToken(verify, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.track(s.direct(s.watchPosts(stream))))
	mux.Handle("GET /mcp/presence", http.HandlerFunc(s.presence))
	for pattern, h := range cfg.Routes {
		mux.Handle(pattern, h)
	}
	s.handler = queryTokenToHeader(bearer(mux))
	return s
}

// maxBodyBytes bounds a request body: the largest arguments and room for
// the JSON-RPC envelope.
const maxBodyBytes = call.MaxArgsBytes + 64<<10

func boolPtr(b bool) *bool { return &b }

// Handler serves /mcp.
func (s *Server) Handler() http.Handler { return s.handler }

// queryTokenToHeader supports the test-only query-token mode: the gate has
// already admitted the request, so moving the token into the header only
// lets the SDK read the same identity.
func queryTokenToHeader(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			if tok := r.URL.Query().Get("access_token"); tok != "" {
				r = r.Clone(r.Context())
				r.Header.Set("Authorization", "Bearer "+tok)
			}
		}
		next.ServeHTTP(w, r)
	})
}

// refusedSessionLinger is how long an MCP session whose Gatehouse
// session could not open is kept for its initialize error to be read.
const refusedSessionLinger = 5 * time.Second

// sessionMiddleware opens a Gatehouse session when an MCP session
// initializes, and ends it when the MCP session closes.
func (s *Server) sessionMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "initialize" {
			return next(ctx, method, req)
		}
		if st := s.cfg.Sessions.Switches(); st.Killed {
			return nil, errors.New(session.ErrKilled.Error())
		}
		res, err := next(ctx, method, req)
		if err != nil {
			return res, err
		}
		ss, ok := req.GetSession().(*mcp.ServerSession)
		if !ok {
			return res, nil
		}
		if err := s.open(ctx, ss, req); err != nil {
			s.cfg.Logger.Error("open session", "err", err)
			// The client reads why in the initialize error; closing the
			// session now would drop that answer. It holds no Gatehouse
			// state, so its tool calls fail until it is closed a little
			// later.
			time.AfterFunc(refusedSessionLinger, func() { ss.Close() })
			return nil, err
		}
		return res, nil
	}
}

func (s *Server) open(ctx context.Context, ss *mcp.ServerSession, req mcp.Request) error {
	client, transport, userID := "unknown", "http", ""
	var hdr http.Header
	if ex := req.GetExtra(); ex != nil {
		if ex.TokenInfo != nil {
			userID = ex.TokenInfo.UserID
			if n, ok := ex.TokenInfo.Extra["name"].(string); ok && n != "" {
				client = n
			}
		}
		hdr = ex.Header
		if hdr.Get(TransportHeader) == "stdio" {
			transport = "stdio"
		}
	}
	start := session.RunStart{Client: client, Transport: transport, Token: userID}
	if p, ok := req.GetParams().(*mcp.InitializeParams); ok && p != nil {
		if p.ClientInfo != nil {
			start.ClientName, start.ClientVersion = p.ClientInfo.Name, p.ClientInfo.Version
		}
		if p.Capabilities != nil && p.Capabilities.Elicitation != nil {
			start.Elicit = func(ctx context.Context, q string) (string, error) { return elicit(ctx, ss, q) }
		}
	}
	start.Cwd = cwdOf(hdr)
	key, named, err := runKey(hdr)
	if err != nil {
		return err
	}
	if !named {
		key = session.RunKey{Agent: "mcp", ID: ss.ID()}
	}
	o := &openSession{ss: ss, userID: userID, idle: s.cfg.IdleTimeout}
	st, release, err := s.cfg.Runs.Attach(ctx, key, start)
	switch {
	case err == nil:
		o.attached(st, release)
	case deferToRoots(err, req):
		o.roots = &rootsOpen{key: key, start: start, turn: make(chan struct{}, 1)}
	default:
		return err
	}
	o.idleTimer = time.AfterFunc(o.idle, o.closeIdle)
	s.mu.Lock()
	s.states[ss.ID()] = o
	s.mu.Unlock()
	// The session ends when the client goes away or Gatehouse kills it.
	go func() {
		_ = ss.Wait()
		o.ended()
		s.mu.Lock()
		delete(s.states, ss.ID())
		s.mu.Unlock()
	}()
	return nil
}

func elicit(ctx context.Context, ss *mcp.ServerSession, question string) (string, error) {
	res, err := ss.Elicit(ctx, &mcp.ElicitParams{
		Message: question,
		RequestedSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{"answer": map[string]any{"type": "string", "title": "Your answer"}},
			"required":   []string{"answer"},
		},
	})
	if err != nil {
		return "", err
	}
	if res.Action != "accept" {
		return "", errors.New("the person declined to answer")
	}
	a, _ := res.Content["answer"].(string)
	return a, nil
}

func (s *Server) callHandler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		st, err := s.stateOfCall(ctx, req)
		if err != nil {
			return nil, err
		}
		if st == nil {
			return nil, errors.New("this MCP session is not open in Gatehouse (it ended or was killed); reconnect")
		}
		st = s.runOfCall(ctx, req, st)
		var args json.RawMessage
		if req.Params != nil {
			args = req.Params.Arguments
		}
		if req.Extra != nil {
			var stop func()
			ctx, stop = s.withPost(ctx, req.Extra.Header)
			defer stop()
		}
		return toolResult(s.cfg.Runner.Call(ctx, call.Request{
			State: st, Tool: name, Args: args, Via: call.ViaMCP, Progress: progressFor(ctx, req),
		})), nil
	}
}

// stateOfCall is the Gatehouse state a call's session has, opening it
// first when the session waits for its client's roots; nil when the
// session is not open in Gatehouse.
func (s *Server) stateOfCall(ctx context.Context, req *mcp.CallToolRequest) (*session.State, error) {
	id := req.Session.ID()
	if id == "" {
		return s.statelessState(ctx, req)
	}
	o := s.session(id)
	if o == nil {
		return nil, nil
	}
	if st := o.state(); st != nil || o.roots == nil {
		return st, nil
	}
	return s.openFromRoots(ctx, o, req.Session)
}

// toolResult is what the agent gets for a call, on either path.
func toolResult(res call.Result) *mcp.CallToolResult {
	out := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Text}}, IsError: res.IsError}
	// The call id ties the agent's view to the audit timeline.
	out.Meta = mcp.Meta{"gatehouse/call_id": res.CallID}
	if res.Structured != nil {
		out.StructuredContent = res.Structured
	}
	return out
}
