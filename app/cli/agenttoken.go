package cli

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gatehouse-dev/gatehouse/backend/agentconfig"
	"github.com/gatehouse-dev/gatehouse/backend/datadir"
)

// AgentTokenPath is the token file the stdio bridge (and the hook) present
// for agent: the agent's own DATA/tokens/<agent>.token when
// `gatehouse install` made one, so revoking it stops that agent alone;
// otherwise the shared agent.token. An agent name install does not know is
// an error, never a silent fallback.
func AgentTokenPath(dataDir, agent string) (string, error) {
	shared := filepath.Join(dataDir, datadir.AgentToken)
	if agent == "" {
		return shared, nil
	}
	a, err := agentconfig.ParseAgent(agent)
	if err != nil {
		return "", err
	}
	own := agentconfig.TokenPath(dataDir, a)
	if _, err := os.Stat(own); err == nil {
		return own, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	return shared, nil
}
