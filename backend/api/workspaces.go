package api

import (
	"net/http"
)

// Workspaces are the roots served without a card. *projects.Projects is
// one.
type Workspaces interface {
	Roots() []string
	Add(root string, forever bool) error
	Remove(root string) error
}

// workspaceBody names a root to add or remove.
type workspaceBody struct {
	Path string `json:"path"`
}

func (s *Server) registerWorkspaces(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/v1/workspaces", s.listWorkspaces)
	mux.HandleFunc("POST /api/v1/workspaces", s.addWorkspace)
	mux.HandleFunc("DELETE /api/v1/workspaces", s.removeWorkspace) // ?path=DIR
}

func (s *Server) listWorkspaces(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"roots": s.Workspaces.Roots()})
}

// addWorkspace serves the projects below a root from now on and keeps it
// in the config. Control-only, as the card it saves is.
func (s *Server) addWorkspace(w http.ResponseWriter, r *http.Request) {
	var b workspaceBody
	if err := decodeBody(r, &b); err != nil {
		s.fail(w, r, err)
		return
	}
	if b.Path == "" {
		s.fail(w, r, &httpError{http.StatusBadRequest, `name the directory: {"path": "/home/you/src"}`})
		return
	}
	if err := s.Workspaces.Add(b.Path, true); err != nil {
		s.fail(w, r, &httpError{http.StatusBadRequest, err.Error()})
		return
	}
	s.Emit(r.Context(), "workspace.added", "human", "", map[string]any{"path": b.Path})
	writeJSON(w, http.StatusOK, map[string]any{"roots": s.Workspaces.Roots()})
}

// removeWorkspace stops serving a root without a card; sessions already
// working there go on.
func (s *Server) removeWorkspace(w http.ResponseWriter, r *http.Request) {
	b := workspaceBody{Path: r.URL.Query().Get("path")}
	if err := s.Workspaces.Remove(b.Path); err != nil {
		s.fail(w, r, &httpError{http.StatusNotFound, err.Error()})
		return
	}
	s.Emit(r.Context(), "workspace.removed", "human", "", map[string]any{"path": b.Path})
	writeJSON(w, http.StatusOK, map[string]any{"roots": s.Workspaces.Roots()})
}
