package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/gatehouse-dev/gatehouse/backend/agentconfig"
)

// AgentStatus is one agent's wiring, as the Connect screen shows it.
type AgentStatus struct {
	Name  string `json:"name"`
	Title string `json:"title"`
	// Installed: the agent's hooks are in place in some scope.
	Installed bool `json:"installed"`
	// Scope is where it is installed: "system" wins over "user".
	Scope  string             `json:"scope,omitempty"`
	Where  []string           `json:"where"`
	User   agentconfig.Status `json:"user"`
	System agentconfig.Status `json:"system"`
}

// Agents installs Gatehouse into the agents' own configs, as
// `gatehouse install` does.
type Agents interface {
	List(ctx context.Context) []AgentStatus
	Install(ctx context.Context, a agentconfig.Agent, scope agentconfig.Scope) (agentconfig.Result, error)
	Uninstall(ctx context.Context, a agentconfig.Agent, scope agentconfig.Scope) (agentconfig.Result, error)
	// SyncTokens registers DATA/tokens/*.token and revokes the removed ones.
	SyncTokens(ctx context.Context) error
}

func (s *Server) registerAgents(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/v1/agents", s.listAgents)
	mux.HandleFunc("POST /api/v1/agents/sync", s.syncAgents)
	mux.HandleFunc("POST /api/v1/agents/{name}/install", s.agentAction(true))
	mux.HandleFunc("POST /api/v1/agents/{name}/uninstall", s.agentAction(false))
}

func (s *Server) listAgents(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"agents": s.Agents.List(r.Context())})
}

func (s *Server) syncAgents(w http.ResponseWriter, r *http.Request) {
	if err := s.Agents.SyncTokens(r.Context()); err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"synced": true})
}

func (s *Server) agentAction(install bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		a, err := agentconfig.ParseAgent(r.PathValue("name"))
		if err != nil {
			s.fail(w, r, &httpError{http.StatusNotFound, err.Error()})
			return
		}
		var req struct {
			Scope string `json:"scope"`
		}
		if err := decodeBody(r, &req); err != nil {
			s.fail(w, r, err)
			return
		}
		scope := agentconfig.User
		if req.Scope != "" {
			if scope, err = agentconfig.ParseScope(req.Scope); err != nil {
				s.fail(w, r, &httpError{http.StatusBadRequest, err.Error()})
				return
			}
		}
		var res agentconfig.Result
		kind := "agent.installed"
		if install {
			res, err = s.Agents.Install(r.Context(), a, scope)
		} else {
			kind = "agent.uninstalled"
			res, err = s.Agents.Uninstall(r.Context(), a, scope)
		}
		var ref *agentconfig.Refusal
		switch {
		case errors.Is(err, agentconfig.ErrNotInstalled):
			s.fail(w, r, &httpError{http.StatusConflict, "Gatehouse is not installed for " + a.Title() + " (" + string(scope) + "); nothing was changed"})
			return
		case errors.As(err, &ref):
			s.fail(w, r, &httpError{http.StatusConflict, ref.Msg})
			return
		case err != nil:
			s.fail(w, r, err)
			return
		}
		if res.Changed() {
			var changed []string
			for _, c := range res.Changes {
				if c.Outcome != agentconfig.Unchanged {
					changed = append(changed, string(c.Outcome)+" "+c.Path)
				}
			}
			s.Emit(r.Context(), kind, actor(r), "", map[string]any{"agent": string(a), "scope": string(scope), "files": changed})
		}
		writeJSON(w, http.StatusOK, res)
	}
}
