package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/agentusage"
	"github.com/gatehouse-dev/gatehouse/backend/policy"
	"github.com/gatehouse-dev/gatehouse/backend/session"
)

func (s *Server) listSessions(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := session.ListFilter{Status: session.Status(q.Get("status"))}
	switch f.Status {
	case "", session.Active, session.Ended, session.Killed:
	default:
		s.fail(w, r, &httpError{http.StatusBadRequest, "status must be active, ended or killed"})
		return
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			s.fail(w, r, &httpError{http.StatusBadRequest, "limit must be a number from 1 to 1000"})
			return
		}
		f.Limit = n
	}
	if v := q.Get("before"); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			s.fail(w, r, &httpError{http.StatusBadRequest, "before must be an RFC 3339 time"})
			return
		}
		f.Before = t
	}
	list, err := s.Sessions.List(r.Context(), f)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"sessions": list})
}

func (s *Server) getSession(w http.ResponseWriter, r *http.Request) {
	info, err := s.Sessions.Lookup(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := sessionPage{Info: info}
	if s.Usage != nil && info.Run != "" {
		u := s.Usage(info.Run)
		out.Tokens = &u
	}
	writeJSON(w, http.StatusOK, out)
}

// sessionPage is one session with what its agent says it spent: tokens
// in and out (and cost, where the agent writes it), or why that is
// unknown.
type sessionPage struct {
	Info   session.Info
	Tokens *agentusage.Usage
}

// MarshalJSON is the session's own JSON with "tokens" added (Info has a
// MarshalJSON of its own, which embedding would let win).
func (p sessionPage) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(p.Info)
	if err != nil || p.Tokens == nil || len(b) < 2 {
		return b, err
	}
	t, err := json.Marshal(p.Tokens)
	if err != nil {
		return nil, err
	}
	out := append(b[:len(b)-1:len(b)-1], `,"tokens":`...)
	out = append(out, t...)
	return append(out, '}'), nil
}

func (s *Server) setMode(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Mode string `json:"mode"`
	}
	if err := decodeBody(r, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	mode, err := policy.ParseMode(req.Mode)
	if err != nil || req.Mode == "" {
		s.fail(w, r, &httpError{http.StatusBadRequest, "mode must be one of plan, ask, auto, accept-edits or unattended"})
		return
	}
	if mode == policy.ModeAuto && req.Mode == string(policy.ModeDefault) && s.DefaultMode != "" {
		// "default" is whatever the daemon was started with.
		mode = policy.Mode(s.DefaultMode)
	}
	req.Mode = string(mode)
	id := r.PathValue("id")
	if err := s.Sessions.SetMode(r.Context(), id, req.Mode, actor(r)); err != nil {
		if errors.Is(err, session.ErrNotActive) {
			s.fail(w, r, &httpError{http.StatusConflict, "that session is not active; modes apply to live sessions"})
			return
		}
		s.fail(w, r, err)
		return
	}
	s.getSession(w, r)
}
