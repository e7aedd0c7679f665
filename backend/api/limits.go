package api

import (
	"net/http"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/session"
)

// budgets is a session's limits as the UI edits them; 0 means no limit.
type budgets struct {
	MaxCalls    int64 `json:"max_calls"`
	WallMinutes int64 `json:"wall_minutes"`
	ExecMinutes int64 `json:"exec_minutes"`
	OutputMiB   int64 `json:"output_mib"`
	Tokens      int64 `json:"tokens"`
}

func toBudgets(l session.Limits) budgets {
	return budgets{MaxCalls: l.MaxCalls, WallMinutes: int64(l.Wall / time.Minute), ExecMinutes: int64(l.ExecTime / time.Minute), OutputMiB: l.OutputBytes >> 20, Tokens: l.Tokens}
}

func (b budgets) limits() session.Limits {
	return session.Limits{MaxCalls: b.MaxCalls, Wall: time.Duration(b.WallMinutes) * time.Minute, ExecTime: time.Duration(b.ExecMinutes) * time.Minute, OutputBytes: b.OutputMiB << 20, Tokens: b.Tokens}
}

func (s *Server) registerLimits(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/v1/sessions/{id}/limits", s.getLimits)
	mux.HandleFunc("POST /api/v1/sessions/{id}/limits", s.setLimits)
}

func (s *Server) liveState(w http.ResponseWriter, r *http.Request) (*session.State, bool) {
	st, ok := s.Live(r.PathValue("id"))
	if !ok {
		s.fail(w, r, &httpError{http.StatusConflict, "that session is not active; budgets apply to live sessions"})
	}
	return st, ok
}

func (s *Server) getLimits(w http.ResponseWriter, r *http.Request) {
	if st, ok := s.liveState(w, r); ok {
		writeJSON(w, http.StatusOK, toBudgets(st.Limits()))
	}
}

func (s *Server) setLimits(w http.ResponseWriter, r *http.Request) {
	var b budgets
	if err := decodeBody(r, &b); err != nil {
		s.fail(w, r, err)
		return
	}
	if b.MaxCalls < 0 || b.WallMinutes < 0 || b.ExecMinutes < 0 || b.OutputMiB < 0 || b.Tokens < 0 {
		s.fail(w, r, &httpError{http.StatusBadRequest, "budgets must be 0 (no limit) or positive"})
		return
	}
	st, ok := s.liveState(w, r)
	if !ok {
		return
	}
	old := toBudgets(st.Limits())
	st.SetLimits(b.limits())
	s.Emit(r.Context(), "session.limits", "human", st.Live.ID(), map[string]any{"from": old, "to": b})
	writeJSON(w, http.StatusOK, b)
}
