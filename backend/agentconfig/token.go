package agentconfig

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gatehouse-dev/gatehouse/backend/token"
)

// TokensDir holds one agent token per installed agent, so one agent can be
// revoked alone. The daemon registers every file in it at start (and when
// asked to sync), named after the file.
const TokensDir = "tokens"

// TokenPath is agent a's token file.
func TokenPath(dataDir string, a Agent) string {
	return filepath.Join(dataDir, TokensDir, string(a)+".token")
}

// EnsureToken creates agent a's token file (0600) unless it exists.
func EnsureToken(dataDir string, a Agent) (created bool, err error) {
	if err := os.MkdirAll(filepath.Join(dataDir, TokensDir), 0o700); err != nil {
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
