package agentconfig

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gatehouse-dev/gatehouse/backend/datadir"
	"github.com/gatehouse-dev/gatehouse/backend/token"
)

// TokenPath is agent a's token file.
func TokenPath(dataDir string, a Agent) string {
	return filepath.Join(dataDir, datadir.TokensDir, string(a)+".token")
}

// EnsureToken creates agent a's token file (0600) unless it exists.
func EnsureToken(dataDir string, a Agent) (created bool, err error) {
	if err := os.MkdirAll(filepath.Join(dataDir, datadir.TokensDir), 0o700); err != nil {
		return false, fmt.Errorf("create tokens directory: %w", err)
	}
	_, created, err = token.Ensure(TokenPath(dataDir, a))
	if err != nil {
		return false, fmt.Errorf("agent token for %s: %w", a, err)
	}
	return created, nil
}

// RemoveToken deletes agent a's token file; the daemon revokes the token
// at its next sync or start.
func RemoveToken(dataDir string, a Agent) (removed bool, err error) {
	err = os.Remove(TokenPath(dataDir, a))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("remove agent token for %s: %w", a, err)
	}
	return true, nil
}
