package api

import (
	"errors"
	"net/http"
	"path/filepath"

	"github.com/gatehouse-dev/gatehouse/backend/buildcache"
)

func (s *Server) registerCache(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/v1/cache", s.cacheUsage)
	mux.HandleFunc("POST /api/v1/cache/clear", s.clearCache)
}

// noCache answers when the daemon keeps no build cache.
func (s *Server) noCache(w http.ResponseWriter, r *http.Request) bool {
	if s.Cache != nil {
		return false
	}
	s.fail(w, r, &httpError{http.StatusConflict, "this daemon keeps no build cache ([sandbox] cache_mib = -1)"})
	return true
}

// cacheUsage is the build cache's size per workspace against its bound.
func (s *Server) cacheUsage(w http.ResponseWriter, r *http.Request) {
	if s.noCache(w, r) {
		return
	}
	u, err := s.Cache.Usage()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, u)
}

type clearRequest struct {
	// Workspace, when set, clears that workspace's cache only.
	Workspace string `json:"workspace"`
}

// clearCache empties one workspace's cache or all of them; a cache a
// running command uses is left and named.
func (s *Server) clearCache(w http.ResponseWriter, r *http.Request) {
	var req clearRequest
	if err := decodeBody(r, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	if s.noCache(w, r) {
		return
	}
	if req.Workspace != "" && !filepath.IsAbs(req.Workspace) {
		s.fail(w, r, &httpError{http.StatusBadRequest, "workspace must be an absolute path"})
		return
	}
	cleared, err := s.Cache.Clear(req.Workspace)
	if errors.Is(err, buildcache.ErrInUse) {
		s.fail(w, r, &httpError{http.StatusConflict, err.Error()})
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if cleared == nil {
		cleared = []string{}
	}
	s.Emit(r.Context(), "cache.cleared", actor(r), "", map[string]any{"workspace": req.Workspace, "roots": cleared})
	writeJSON(w, http.StatusOK, map[string]any{"cleared": cleared})
}
