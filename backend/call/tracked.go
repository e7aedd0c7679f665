package call

import (
	"context"
	"path/filepath"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/call/effect"
)

// tracked reports whether git tracks anything under the workspace's
// directory name, asking git once per session and directory: whether a
// dist/ is source does not change from call to call. An error counts as
// tracked, which keeps the directory staged.
func (h *held) tracked(ws, name string) bool {
	key := filepath.Join(ws, name)
	h.mu.Lock()
	v, ok := h.trackedDirs[key]
	h.mu.Unlock()
	if ok {
		return v
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	t, err := effect.Tracks(ctx, ws, name)
	v = t || err != nil
	h.mu.Lock()
	if h.trackedDirs == nil {
		h.trackedDirs = map[string]bool{}
	}
	h.trackedDirs[key] = v
	h.mu.Unlock()
	return v
}
