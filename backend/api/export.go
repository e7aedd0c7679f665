package api

import (
	"net/http"

	"github.com/gatehouse-dev/gatehouse/backend/export"
)

// exportState is GET /api/v1/export: where the audit goes besides this
// machine, and how far each sink is (last sent seq and time, backlog,
// last error). Targets never hold credentials: those are refused in the
// URL and live in headers, which are not shown.
type exportState struct {
	Enabled bool            `json:"enabled"`
	Sinks   []export.Status `json:"sinks"`
}

func (s *Server) registerExport(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/v1/export", s.getExport)
}

func (s *Server) getExport(w http.ResponseWriter, r *http.Request) {
	out := exportState{Sinks: []export.Status{}}
	if s.Export != nil {
		st, err := s.Export.Status(r.Context())
		if err != nil {
			s.fail(w, r, err)
			return
		}
		out.Sinks = append(out.Sinks, st...)
		out.Enabled = len(st) > 0
	}
	writeJSON(w, http.StatusOK, out)
}
