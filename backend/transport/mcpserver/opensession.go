package mcpserver

import (
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/backend/session"
)

// openSession is a stateful MCP session that Gatehouse opened: its state,
// the SDK's session, the token it belongs to and its idle timer.
type openSession struct {
	ss     *mcp.ServerSession
	userID string // the agent token's id; other tokens cannot use the session
	// roots is set when the session opens from its client's roots at its
	// first call (roots.go); st is nil until then.
	roots *rootsOpen

	// The session closes after idle without a request in flight, as the
	// SDK's SessionTimeout would, but counting the calls answered directly
	// (direct.go), which the SDK never sees.
	idle      time.Duration
	idleTimer *time.Timer
	mu        sync.Mutex
	inFlight  int
	st        *session.State
	release   func(gone bool)
	closed    bool
}

// state is the session's Gatehouse state, nil while it waits for its
// client's roots.
func (o *openSession) state() *session.State {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.st
}

// attached gives the session its Gatehouse state and the run's release,
// which runs at once if the MCP session has already closed.
func (o *openSession) attached(st *session.State, release func(gone bool)) {
	o.mu.Lock()
	closed := o.closed
	if !closed {
		o.st, o.release = st, release
	}
	o.mu.Unlock()
	if closed {
		release(true)
	}
}

// ended: the client closed its MCP session (or it idled out), so it has
// gone.
func (o *openSession) ended() {
	o.mu.Lock()
	o.closed = true
	release := o.release
	o.mu.Unlock()
	if release != nil {
		release(true)
	}
	o.idleTimer.Stop()
}

func (o *openSession) closeIdle() {
	o.mu.Lock()
	busy := o.inFlight > 0
	o.mu.Unlock()
	if !busy {
		_ = o.ss.Close()
	}
}

// begin and end bracket one POST on the session: no idle clock runs while
// any is in flight.
func (o *openSession) begin() {
	o.mu.Lock()
	o.inFlight++
	o.idleTimer.Stop()
	o.mu.Unlock()
}

func (o *openSession) end() {
	o.mu.Lock()
	o.inFlight--
	if o.inFlight == 0 {
		o.idleTimer.Reset(o.idle)
	}
	o.mu.Unlock()
}

// stateOf is the Gatehouse state of an open MCP session, or nil.
func (s *Server) stateOf(sessionID string) *session.State {
	if o := s.session(sessionID); o != nil {
		return o.state()
	}
	return nil
}

func (s *Server) session(sessionID string) *openSession {
	if sessionID == "" {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.states[sessionID]
}

// track keeps each session's idle clock stopped while a POST on it runs.
func (s *Server) track(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			if o := s.session(r.Header.Get(sessionIDHeader)); o != nil {
				o.begin()
				defer o.end()
			}
		}
		next.ServeHTTP(w, r)
	})
}

const sessionIDHeader = "Mcp-Session-Id"
