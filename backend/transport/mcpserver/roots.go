package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/backend/projects"
	"github.com/gatehouse-dev/gatehouse/backend/session"
)

// A plain MCP client names no directory, but one that declares the roots
// capability can say where it works. When that is all Gatehouse lacks
// (no root is configured to fall back on), the session initializes
// without a workspace and opens on its first tool call, in the client's
// first file:// root, through Runs like every other route (a root's
// project runs at once, any other raises a workspace card, some are
// refused). The client may not be asked before it has initialized, and a
// request made on the tool call's own stream reaches it whether or not
// it listens on the standalone one; the session's other calls wait.

// rootsOpen is a session still to open from its client's roots.
type rootsOpen struct {
	key   session.RunKey
	start session.RunStart
	// turn is held by the call opening the session; others wait on it.
	turn chan struct{}
	// err is why the session could not open, told to every later call
	// until the client's roots change.
	err error
}

// declaresRoots: the client can be asked for its roots.
func declaresRoots(req mcp.Request) bool {
	p, ok := req.GetParams().(*mcp.InitializeParams)
	return ok && p != nil && p.Capabilities != nil && p.Capabilities.RootsV2 != nil
}

// openFromRoots opens o's Gatehouse session in the project of its
// client's first file:// root, or waits for the call doing so.
func (s *Server) openFromRoots(ctx context.Context, o *openSession, ss *mcp.ServerSession) (*session.State, error) {
	r := o.roots
	select {
	case r.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-r.turn }()
	if st := o.state(); st != nil {
		return st, nil
	}
	o.mu.Lock()
	err := r.err
	o.mu.Unlock()
	if err != nil {
		return nil, err
	}
	st, release, err := s.attachFromRoots(ctx, ss, r)
	if err != nil {
		if ctx.Err() == nil {
			o.mu.Lock()
			r.err = err
			o.mu.Unlock()
		}
		return nil, err
	}
	o.attached(st, release)
	return st, nil
}

// rootsTimeout bounds the wait for a client's roots: one that declared
// the capability but does not answer is told so instead of hanging.
const rootsTimeout = 30 * time.Second

func (s *Server) attachFromRoots(ctx context.Context, ss *mcp.ServerSession, r *rootsOpen) (*session.State, func(bool), error) {
	askCtx, cancel := context.WithTimeout(ctx, rootsTimeout)
	res, err := ss.ListRoots(askCtx, nil)
	cancel()
	if err != nil {
		return nil, nil, fmt.Errorf("Gatehouse could not ask the agent's client which project it works in (MCP roots): %w", err)
	}
	dir := firstFileRoot(res.Roots)
	if dir == "" {
		return nil, nil, projects.ErrNoProject
	}
	start := r.start
	start.Cwd = dir
	return s.cfg.Runs.Attach(ctx, r.key, start)
}

// firstFileRoot is the directory of the first root that is a local
// absolute file:// URI, or "".
func firstFileRoot(roots []*mcp.Root) string {
	for _, root := range roots {
		if root == nil {
			continue
		}
		u, err := url.Parse(root.URI)
		if err != nil || u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") || !filepath.IsAbs(u.Path) {
			continue
		}
		return filepath.Clean(u.Path)
	}
	return ""
}

// rootsChanged lets a session that could not open from its client's old
// roots try its new ones at its next call. A session already open keeps
// its workspace.
func (s *Server) rootsChanged(_ context.Context, req *mcp.RootsListChangedRequest) {
	o := s.session(req.Session.ID())
	if o == nil || o.roots == nil {
		return
	}
	o.mu.Lock()
	o.roots.err = nil
	o.mu.Unlock()
}

// deferToRoots: a session that failed to open only because Gatehouse
// does not know its project opens from its client's roots, if it has any.
func deferToRoots(err error, req mcp.Request) bool {
	return errors.Is(err, projects.ErrNoProject) && declaresRoots(req)
}
