package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/gatehouse-dev/gatehouse/backend/confined"
)

// ConfinedRuns are whole-agent runs (`gatehouse run`); *confined.Runs is
// one. Control-only: starting one is the person at their terminal.
type ConfinedRuns interface {
	Start(ctx context.Context, req confined.Request) (confined.Started, error)
	Wait(ctx context.Context, id string) (confined.Ended, error)
	End(ctx context.Context, id string, exit int) (confined.Closed, error)
	// NotStarted ends a run whose agent never started, saying why.
	NotStarted(ctx context.Context, id, why string) (confined.Closed, error)
}

func (s *Server) registerRuns(mux *http.ServeMux) {
	mux.HandleFunc("POST /api/v1/runs", s.startRun)
	mux.HandleFunc("GET /api/v1/runs/{id}/wait", s.waitRun)
	mux.HandleFunc("POST /api/v1/runs/{id}/end", s.endRun)
}

// startRun opens a confined run's session (its workspace card answered
// first) and its listeners; the caller starts the sandbox.
func (s *Server) startRun(w http.ResponseWriter, r *http.Request) {
	var req confined.Request
	if err := decodeBody(r, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	started, err := s.Runs.Start(r.Context(), req)
	if err != nil {
		s.fail(w, r, &httpError{http.StatusForbidden, err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, started)
}

// waitRun answers when the run's session ends (the kill switch, a budget,
// the person). The caller holding it is the run: if it goes away, so did
// the sandbox, and the run ends.
func (s *Server) waitRun(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	ended, err := s.Runs.Wait(r.Context(), id)
	switch {
	case errors.Is(err, confined.ErrNoRun):
		s.fail(w, r, &httpError{http.StatusNotFound, err.Error()})
		return
	case err != nil:
		// `gatehouse run` went away without saying how the agent ended.
		_, _ = s.Runs.End(context.WithoutCancel(r.Context()), id, -1)
		return
	}
	writeJSON(w, http.StatusOK, ended)
}

// endRun records how the agent exited and ends the run.
func (s *Server) endRun(w http.ResponseWriter, r *http.Request) {
	var b struct {
		Exit int `json:"exit"`
		// NotStarted, when set, says why the agent never started.
		NotStarted string `json:"not_started"`
	}
	if err := decodeBody(r, &b); err != nil {
		s.fail(w, r, err)
		return
	}
	var closed confined.Closed
	var err error
	if b.NotStarted != "" {
		closed, err = s.Runs.NotStarted(r.Context(), r.PathValue("id"), b.NotStarted)
	} else {
		closed, err = s.Runs.End(r.Context(), r.PathValue("id"), b.Exit)
	}
	if err != nil {
		s.fail(w, r, &httpError{http.StatusNotFound, err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, closed)
}
