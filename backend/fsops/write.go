package fsops

import (
	"context"

	"github.com/gatehouse-dev/gatehouse/backend/workspace"
)

// WriteResult reports a completed write.
type WriteResult struct {
	Path    string `json:"path"`
	Bytes   int64  `json:"bytes"`
	Created bool   `json:"created"`
	Mode    string `json:"mode"`
}

// WriteFile replaces the file at p with content atomically: readers see
// the old file or the new one, never part of either. An existing file
// keeps its permission bits; a new one gets 0644 and any missing parent
// directories. Symlinks, directories and special files are refused.
func WriteFile(ctx context.Context, roots *workspace.Roots, p workspace.Path, content []byte) (WriteResult, error) {
	if len(content) > MaxWriteBytes {
		return WriteResult{}, errorf(ErrTooLarge, "content for %s is %d bytes; the limit is %d (10 MiB); write it in a command instead", agentPath(roots, p), len(content), MaxWriteBytes)
	}
	cur, err := loadCurrent(ctx, roots, p, false)
	if err != nil {
		return WriteResult{}, err
	}
	if err := replace(ctx, roots, p, content, cur.mode, nil); err != nil {
		return WriteResult{}, err
	}
	return WriteResult{Path: agentPath(roots, p), Bytes: int64(len(content)), Created: !cur.exists, Mode: modeString(cur.mode)}, nil
}
