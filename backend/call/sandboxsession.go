package call

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/gatehouse-dev/gatehouse/backend/session"
	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// sandboxSession opens the session's sandbox on first use (for containers,
// that starts the session's container).
func (r *Runner) sandboxSession(ctx context.Context, st *session.State) (sandbox.Session, error) {
	h := heldBy(st)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sandbox != nil {
		return h.sandbox, nil
	}
	if h.closed {
		return nil, errors.New("this session has ended")
	}
	if r.deps.Sandbox == nil {
		return nil, errors.New("no sandbox is configured; run `gatehouse doctor` to see which backends work here")
	}
	tmp, err := st.MakeTmp()
	if err != nil {
		// Each command gets a /tmp of its own instead.
		r.deps.Logger.Warn("make the session's temporary directory", "err", err)
	}
	ss := r.sessionSpec(st, sandbox.SessionSpec{
		ID: st.Live.ID(), Workspaces: st.Workspaces, Hidden: r.deps.Hidden, Limits: sandbox.DefaultLimits(),
		ExposeSecrets: r.deps.ExposeSecrets, StageRoot: r.stageRoot(st), Tmp: tmp,
	})
	if ss.StageRoot != "" {
		if err := os.MkdirAll(ss.StageRoot, 0o700); err != nil {
			// Runs go checked instead of staged.
			r.deps.Logger.Warn("make the session's stage root", "err", err)
			ss.StageRoot = ""
		}
	}
	if ss.StageRoot != "" {
		h.stageRoot = ss.StageRoot
	}
	sb, err := r.deps.Sandbox.Open(st.Live.Context(), ss)
	if err != nil {
		return nil, fmt.Errorf("could not start the sandbox: %w", err)
	}
	h.sandbox = sb
	return sb, nil
}
