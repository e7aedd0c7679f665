package daemon

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gatehouse-dev/gatehouse/backend/agentconfig"
	"github.com/gatehouse-dev/gatehouse/backend/api"
)

// agentsService does for the Connect screen what `gatehouse install` does
// in a terminal, with the daemon's own binary and data dir.
type agentsService struct {
	d *Daemon
}

func (d *Daemon) agentsService() *agentsService { return &agentsService{d: d} }

func (s *agentsService) installer() (agentconfig.Installer, error) {
	env, err := agentconfig.FromOS()
	if err != nil {
		return agentconfig.Installer{}, err
	}
	return agentconfig.Installer{Env: env, DataDir: s.d.opts.DataDir}, nil
}

func (s *agentsService) List(ctx context.Context) []api.AgentStatus {
	in, err := s.installer()
	out := []api.AgentStatus{}
	if err != nil {
		s.d.logger.Warn("agent status", "err", err)
		return out
	}
	for _, a := range agentconfig.Agents {
		st := api.AgentStatus{Name: string(a), Title: a.Title(), User: in.Status(a, agentconfig.User), System: in.Status(a, agentconfig.System)}
		switch {
		case st.System.Wired:
			st.Installed, st.Scope, st.Where = true, string(agentconfig.System), st.System.Files
		case st.User.Wired:
			st.Installed, st.Scope, st.Where = true, string(agentconfig.User), st.User.Files
		default:
			st.Where = st.User.Files
		}
		out = append(out, st)
	}
	return out
}

func (s *agentsService) Install(ctx context.Context, a agentconfig.Agent, scope agentconfig.Scope) (agentconfig.Result, error) {
	in, err := s.installer()
	if err != nil {
		return agentconfig.Result{}, err
	}
	bin, err := os.Executable()
	if err != nil {
		return agentconfig.Result{}, fmt.Errorf("find the gatehouse binary: %w", err)
	}
	if r, err := filepath.EvalSymlinks(bin); err == nil {
		bin = r
	}
	res, err := in.Wire(a, scope, agentconfig.Wiring{Binary: bin, DataDir: s.d.opts.DataDir})
	if err != nil {
		return res, err
	}
	return res, s.SyncTokens(ctx)
}

func (s *agentsService) Uninstall(ctx context.Context, a agentconfig.Agent, scope agentconfig.Scope) (agentconfig.Result, error) {
	in, err := s.installer()
	if err != nil {
		return agentconfig.Result{}, err
	}
	res, err := in.Unwire(a, scope)
	if err != nil {
		return res, err
	}
	return res, s.SyncTokens(ctx)
}

func (s *agentsService) SyncTokens(ctx context.Context) error {
	if err := syncAgentTokens(ctx, s.d.db, s.d.opts.DataDir); err != nil {
		return err
	}
	return loadTokens(ctx, s.d.db, s.d.tokens)
}
