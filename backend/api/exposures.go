package api

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/gatehouse-dev/gatehouse/backend/exposure"
)

// Exposures open and stop the listeners that serve the approvals page to
// another device (`gatehouse public`), and show what Gatehouse sees but
// does not control.
type Exposures interface {
	Open(ctx context.Context, o exposure.Options) (exposure.Opened, error)
	Close(ctx context.Context, id, reason string) (int, error)
	List() []exposure.Info
	Seen() exposure.Seen
}

func (s *Server) registerExposures(mux *http.ServeMux) {
	if s.Exposures == nil {
		return
	}
	mux.HandleFunc("GET /api/v1/exposures", s.listExposures)
	mux.HandleFunc("POST /api/v1/exposures", s.openExposure)
	mux.HandleFunc("DELETE /api/v1/exposures", s.closeExposure)
	mux.HandleFunc("DELETE /api/v1/exposures/{id}", s.closeExposure)
}

func (s *Server) listExposures(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"exposures": s.Exposures.List(), "suspected": s.Exposures.Seen()})
}

type openExposureRequest struct {
	// For is a duration such as "30m" ("" is the default hour).
	For    string `json:"for"`
	Listen string `json:"listen"`
}

// openExposure answers with the link and its QR code: the only time the
// token leaves the daemon.
func (s *Server) openExposure(w http.ResponseWriter, r *http.Request) {
	var req openExposureRequest
	if err := decodeBody(r, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	d, err := exposure.ParseFor(req.For)
	if err != nil {
		s.fail(w, r, &httpError{http.StatusBadRequest, err.Error()})
		return
	}
	o, err := s.Exposures.Open(r.Context(), exposure.Options{For: d, Listen: strings.TrimSpace(req.Listen)})
	if err != nil {
		// Every error here is about what the person asked for (an
		// address, a tunnel): a sentence for them, logged too.
		s.Logger.Warn("open exposure", "err", err)
		s.fail(w, r, &httpError{http.StatusBadRequest, err.Error()})
		return
	}
	writeJSON(w, http.StatusCreated, o)
}

func (s *Server) closeExposure(w http.ResponseWriter, r *http.Request) {
	n, err := s.Exposures.Close(r.Context(), r.PathValue("id"), "stopped")
	if errors.Is(err, exposure.ErrNoSuchExposure) {
		s.fail(w, r, &httpError{http.StatusNotFound, err.Error()})
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"stopped": n})
}
