// Package api is the control API under /api/v1: what the desktop app, the
// tray and the CLI use. Every route here needs the control capability
// (control token or the same-uid unix socket); the gate checked that.
package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"

	"github.com/gatehouse-dev/gatehouse/backend/agentusage"
	"github.com/gatehouse-dev/gatehouse/backend/approval"
	"github.com/gatehouse-dev/gatehouse/backend/audit"
	"github.com/gatehouse-dev/gatehouse/backend/buildcache"
	"github.com/gatehouse-dev/gatehouse/backend/call"
	"github.com/gatehouse-dev/gatehouse/backend/db"
	"github.com/gatehouse-dev/gatehouse/backend/export"
	"github.com/gatehouse-dev/gatehouse/backend/httpgate"
	"github.com/gatehouse-dev/gatehouse/backend/session"
	"github.com/gatehouse-dev/gatehouse/backend/snapshot"
)

// Server holds what the handlers need.
type Server struct {
	Sessions  *session.Manager
	Audit     *audit.Store
	Approvals *approval.Broker
	// Kill stops everything: approvals first, then sessions.
	Kill      func(ctx context.Context, actor, reason string) int
	Policy    *call.PolicyHolder
	Snapshots *snapshot.Store
	Tokens    Tokens
	// Agents wires Gatehouse into the agents' own configs.
	Agents Agents
	// Connect describes how agents reach the daemon (URL, default token).
	Connect func() map[string]any
	// Live finds a live session's tool-call state (its budgets).
	Live func(id string) (*session.State, bool)
	// Emit records an audit event for a control action.
	Emit   func(ctx context.Context, kind, actor, session string, payload any)
	Logger *slog.Logger
	// Status adds daemon facts (version, sandbox backend) to GET /status.
	Status func() map[string]any
	// DefaultMode is the mode new sessions start in, which "default" names.
	DefaultMode string
	// Cache is the commands' build cache; nil when there is none.
	Cache *buildcache.Cache
	// RunPath is the PATH commands are found on ("" for the system's).
	RunPath string
	// Workspaces are the roots agents work below without a card.
	Workspaces Workspaces
	// Runs are whole-agent runs (`gatehouse run`).
	Runs ConfinedRuns
	// Exposures are `gatehouse public`'s listeners; nil offers none.
	Exposures Exposures
	// Usage reads an agent run's own token counts; nil: not shown.
	Usage func(run string) agentusage.Usage
	// Export is the audit's export to a team's collector; nil: none.
	Export *export.Runner
}

// Register adds the control routes to mux. Later features add their own
// files with their own Register methods.
func (s *Server) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/v1/status", s.status)
	mux.HandleFunc("GET /api/v1/sessions", s.listSessions)
	mux.HandleFunc("GET /api/v1/sessions/{id}", s.getSession)
	mux.HandleFunc("GET /api/v1/events", s.listEvents)
	mux.HandleFunc("GET /api/v1/events/stream", s.streamEvents)
	mux.HandleFunc("POST /api/v1/kill", s.kill)
	mux.HandleFunc("POST /api/v1/pause", s.pause)
	mux.HandleFunc("POST /api/v1/resume", s.resume)
	s.registerApprovals(mux)
	s.registerPolicy(mux)
	s.registerTokens(mux)
	s.registerRollback(mux)
	s.registerLimits(mux)
	s.registerAgents(mux)
	s.registerCache(mux)
	s.registerWorkspaces(mux)
	s.registerRuns(mux)
	s.registerExposures(mux)
	s.registerExport(mux)
	mux.HandleFunc("POST /api/v1/sessions/{id}/mode", s.setMode)
	mux.HandleFunc("/api/v1/", func(w http.ResponseWriter, r *http.Request) {
		httpgate.Error(w, http.StatusNotFound, fmt.Sprintf("no route %s %s; see GET /api/v1/status and the README for the control API", r.Method, r.URL.Path))
	})
}

func writeJSON(w http.ResponseWriter, code int, v any) { httpgate.JSON(w, code, v) }

// decodeBody reads an optional JSON body strictly. An empty body leaves dst
// untouched.
func decodeBody(r *http.Request, dst any) error {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return &httpError{http.StatusRequestEntityTooLarge, "request body is larger than 10 MiB"}
		}
		return &httpError{http.StatusBadRequest, "could not read the request body"}
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		return nil
	}
	ct := r.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
		return &httpError{http.StatusUnsupportedMediaType, "send the body as Content-Type: application/json"}
	}
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return &httpError{http.StatusBadRequest, "malformed JSON body: " + err.Error()}
	}
	if dec.More() {
		return &httpError{http.StatusBadRequest, "malformed JSON body: trailing data after the object"}
	}
	return nil
}

type httpError struct {
	code int
	msg  string
}

func (e *httpError) Error() string { return e.msg }

// fail maps an error to a response; internal detail goes to the log only.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var he *httpError
	switch {
	case errors.As(err, &he):
		httpgate.Error(w, he.code, he.msg)
	case errors.Is(err, session.ErrNotFound):
		httpgate.Error(w, http.StatusNotFound, "no such session")
	case errors.Is(err, context.Canceled):
		// client went away
	default:
		s.Logger.Error("control api", "method", r.Method, "path", r.URL.Path, "err", err)
		httpgate.Error(w, http.StatusInternalServerError, userMessage(err))
	}
}

// userMessage turns storage faults into advice; other detail stays in logs.
func userMessage(err error) string {
	var se *db.StorageError
	if errors.As(err, &se) {
		return se.Error()
	}
	return "internal error; see the daemon log for details"
}

// actor of every control request: only the person holds the control
// capability.
func actor(*http.Request) string { return "human" }

func (s *Server) status(w http.ResponseWriter, r *http.Request) {
	out := map[string]any{"state": s.Sessions.Switches()}
	if s.Status != nil {
		for k, v := range s.Status() {
			out[k] = v
		}
	}
	writeJSON(w, http.StatusOK, out)
}

type switchRequest struct {
	Reason string `json:"reason"`
	Via    string `json:"via"` // "tray", "cli", "ui": recorded in the audit row
}

func (req switchRequest) reason(def string) string {
	r := strings.TrimSpace(req.Reason)
	if r == "" {
		r = def
	}
	if req.Via != "" {
		r += " via " + req.Via
	}
	return r
}

func (s *Server) kill(w http.ResponseWriter, r *http.Request) {
	var req switchRequest
	if err := decodeBody(r, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	n := s.Kill(r.Context(), actor(r), req.reason("killed by human"))
	writeJSON(w, http.StatusOK, map[string]any{"killed_sessions": n, "state": s.Sessions.Switches()})
}

func (s *Server) pause(w http.ResponseWriter, r *http.Request) {
	var req switchRequest
	if err := decodeBody(r, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	changed := s.Sessions.Pause(r.Context(), actor(r), req.reason("paused by human"))
	writeJSON(w, http.StatusOK, map[string]any{"state": s.Sessions.Switches(), "changed": changed})
}

func (s *Server) resume(w http.ResponseWriter, r *http.Request) {
	var req switchRequest
	if err := decodeBody(r, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	res := s.Sessions.Resume(r.Context(), actor(r), req.reason("resumed by human"))
	writeJSON(w, http.StatusOK, map[string]any{"state": s.Sessions.Switches(), "resumed": res})
}
