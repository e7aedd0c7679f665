package api

import (
	"net/http"
	"strconv"
	"time"

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
	writeJSON(w, http.StatusOK, info)
}
