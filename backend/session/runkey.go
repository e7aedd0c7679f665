package session

import (
	"errors"
	"fmt"
	"strings"
)

// RunKey names one agent run.
type RunKey struct {
	// Agent is the agent (claude, codex, gemini, cursor), or the transport
	// that alone identifies the run ("mcp" for a stateful MCP session,
	// "stateless" for a client that names no run).
	Agent string
	// ID tells the run apart within Agent: the agent's own session id, an
	// MCP session id.
	ID string
}

func (k RunKey) String() string { return k.Agent + ":" + k.ID }

// Agents are the agents whose runs Gatehouse can name: their MCP bridge
// and their hooks identify the run by the agent's own session id.
var Agents = []string{"claude", "codex", "gemini", "cursor"}

// ConfinedAgent names the runs of whole agents in a sandbox (`gatehouse
// run`): the daemon opens each before the agent starts, and every request
// from inside it belongs to it. No client can name one (ParseRunKey
// refuses it); only a run's own listener does.
const ConfinedAgent = "run"

// ConfinedRun is the key of the confined run id.
func ConfinedRun(id string) RunKey { return RunKey{Agent: ConfinedAgent, ID: id} }

// BridgeAgent names the runs of stdio bridges whose agent gives them no run
// id: each such bridge is a run of its own.
const BridgeAgent = "bridge"

// maxRunID bounds a run id (agents use UUIDs).
const maxRunID = 128

// ParseRunKey reads "agent:id" as a bridge or hook sends it. The agent must be
// one of Agents and the id printable ASCII without spaces; anything else
// fails, so a bad value never falls back to some other run.
func ParseRunKey(s string) (RunKey, error) {
	agent, id, ok := strings.Cut(s, ":")
	if !ok {
		return RunKey{}, errors.New(`want "agent:run-id"`)
	}
	if agent != BridgeAgent {
		if err := CheckAgent(agent); err != nil {
			return RunKey{}, err
		}
	}
	if err := checkRunID(id); err != nil {
		return RunKey{}, err
	}
	return RunKey{Agent: agent, ID: id}, nil
}

// CheckAgent accepts the names in Agents.
func CheckAgent(agent string) error {
	for _, a := range Agents {
		if agent == a {
			return nil
		}
	}
	return fmt.Errorf("unknown agent %q; use one of %s", agent, strings.Join(Agents, ", "))
}

func checkRunID(id string) error {
	if id == "" || len(id) > maxRunID {
		return fmt.Errorf("the run id must be 1 to %d characters", maxRunID)
	}
	for i := 0; i < len(id); i++ {
		if id[i] <= ' ' || id[i] > '~' {
			return errors.New("the run id must be printable ASCII without spaces")
		}
	}
	return nil
}
