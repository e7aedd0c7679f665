package call

import (
	"context"
	"os"
	"sync"

	"github.com/gatehouse-dev/gatehouse/backend/session"
	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// held is what the call pipeline holds for one session. The session's
// State keeps it (as its session.Resources), so whoever idles or ends the
// session releases the sandbox without package session knowing of one.
type held struct {
	mu      sync.Mutex
	sandbox sandbox.Session // opened on the first command (sandboxSession)
	closed  bool
	// stageRoot is the session's staging directory, removed when it ends.
	stageRoot string
	// trackedDirs remembers which pass-through candidates git tracks.
	trackedDirs map[string]bool

	// limitMu keeps to one limit card at a time per session, however
	// many calls race to checkLimits.
	limitMu sync.Mutex
}

// heldBy is what the pipeline holds for st, made on first use.
func heldBy(st *session.State) *held {
	return st.Resources(func() session.Resources { return new(held) }).(*held)
}

// Idle releases the warm sandbox (a container); the next command opens
// it again.
func (h *held) Idle(ctx context.Context) {
	h.mu.Lock()
	sb := h.sandbox
	h.sandbox = nil
	h.mu.Unlock()
	if sb != nil {
		_ = sb.Close(ctx)
	}
}

// Close releases the sandbox and removes the staging directory; no
// sandbox opens after it.
func (h *held) Close(ctx context.Context) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.closed = true
	sb, root := h.sandbox, h.stageRoot
	h.sandbox = nil
	h.mu.Unlock()
	if sb != nil {
		_ = sb.Close(ctx)
	}
	if root != "" {
		// Its runs are over: each removed its own layers, this is the rest.
		_ = os.RemoveAll(root)
	}
}
