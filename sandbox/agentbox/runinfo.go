package agentbox

import (
	"encoding/json"
	"os"
)

// RunInfoPath is where, inside a confined run, a file says which run it
// is and where the daemon's agent routes are. The environment says the
// same (GATEHOUSE_RUN, GATEHOUSE_AGENT_ADDR), but agents start their MCP
// servers with an environment of their own choosing (Codex passes only a
// short list), and those servers must find the daemon too.
const RunInfoPath = "/run/gatehouse/run.json"

// RunInfo is that file's content.
type RunInfo struct {
	Run       string `json:"run"`
	AgentAddr string `json:"agent_addr"`
}

// ReadRunInfo reads the run's file; ok is false outside a confined run.
func ReadRunInfo() (RunInfo, bool) {
	b, err := os.ReadFile(RunInfoPath)
	if err != nil {
		return RunInfo{}, false
	}
	var ri RunInfo
	if json.Unmarshal(b, &ri) != nil || ri.Run == "" || ri.AgentAddr == "" {
		return RunInfo{}, false
	}
	return ri, true
}
