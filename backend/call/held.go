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
	// stageRoot is the session's staging directory, removed when it ends
	// and no staged run is left in it: staging counts those runs, since a
	// run the kill switch stopped still reads its layers after the end.
	stageRoot string
	staging   int
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
func (h *held) Idle(ctx context.Context) { h.release(ctx, false) }

// Close releases the sandbox and removes the staging directory, or leaves
// that to the last staged run still in it; no sandbox opens after it.
func (h *held) Close(ctx context.Context) {
	if h.release(ctx, true) {
		h.removeStageRoot()
	}
}

// release closes the open sandbox, if any; closing also ends the
// session's use of it. It is false once the session was closed before.
func (h *held) release(ctx context.Context, closing bool) bool {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return false
	}
	h.closed = closing
	sb := h.sandbox
	h.sandbox = nil
	h.mu.Unlock()
	if sb != nil {
		_ = sb.Close(ctx)
	}
	return true
}

// enterStage counts a staged run into root; it is false once the session
// has closed, when nothing may stage any more.
func (h *held) enterStage(root string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	h.stageRoot = root
	h.staging++
	return true
}

// leaveStage counts a staged run out once it has removed its own layers;
// the last one out of a closed session removes the rest of the root.
func (h *held) leaveStage() {
	h.mu.Lock()
	h.staging--
	h.mu.Unlock()
	h.removeStageRoot()
}

// removeStageRoot removes the staging directory once the session has
// closed and no staged run is left in it; each run removed its own layers,
// this is the rest.
func (h *held) removeStageRoot() {
	h.mu.Lock()
	root := h.stageRoot
	if !h.closed || h.staging > 0 {
		root = ""
	}
	if root != "" {
		h.stageRoot = ""
	}
	h.mu.Unlock()
	if root != "" {
		_ = os.RemoveAll(root)
	}
}
