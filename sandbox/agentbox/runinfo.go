package agentbox

import (
	"encoding/json"
	"os"
	"path/filepath"
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

// HomeRunInfo is where, in the home a run on Landlock gives its agent
// (which mounts nothing at RunInfoPath), the same file is: agents pass
// HOME to the servers they start, whatever else they drop. The agent may
// rewrite it, which gains it nothing: it reaches no address but its
// run's. Nothing outside a sandbox can tell it from any other file, so
// it only says where the daemon is (FindRunInfo), never that a process
// is confined (ReadRunInfo).
const HomeRunInfo = ".gatehouse-run.json"

// ReadRunInfo reads the run's file; ok is false outside a confined run.
// Only a sandbox has it.
func ReadRunInfo() (RunInfo, bool) { return readRunInfo(RunInfoPath) }

// FindRunInfo is ReadRunInfo, or else the file a run on Landlock leaves
// in its agent's home: where the daemon's agent routes are.
func FindRunInfo() (RunInfo, bool) {
	if ri, ok := ReadRunInfo(); ok {
		return ri, true
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return RunInfo{}, false
	}
	return readRunInfo(filepath.Join(home, HomeRunInfo))
}

func readRunInfo(path string) (RunInfo, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return RunInfo{}, false
	}
	var ri RunInfo
	if json.Unmarshal(b, &ri) != nil || ri.Run == "" || ri.AgentAddr == "" {
		return RunInfo{}, false
	}
	return ri, true
}
