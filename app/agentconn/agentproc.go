package agentconn

import (
	"os"
	"strconv"

	"github.com/gatehouse-dev/gatehouse/sandbox/proctree"
)

// shells are skipped on the way up to the agent: an agent may start its
// hooks, or its MCP servers, through one.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "fish": true, "ksh": true, "mksh": true, "busybox": true, "env": true}

// AgentProcess names the agent process that started this one: the
// nearest ancestor that is not a shell, by pid and start time (a pid
// alone can be reused). An agent that gives neither its MCP servers nor
// its hooks a run id they share (Gemini CLI) still starts both, so both
// name the same process. It is "" where /proc is missing (macOS).
func AgentProcess() string {
	pid := os.Getppid()
	for range 4 {
		if pid <= 1 {
			return ""
		}
		p, err := proctree.Stat(pid)
		if err != nil {
			return ""
		}
		if !shells[p.Comm] {
			return "proc-" + strconv.Itoa(pid) + "-" + strconv.FormatUint(p.Start, 10)
		}
		pid = p.PPID
	}
	return ""
}

// RunByProcess are the agents that tell neither their MCP servers nor
// their hooks a run id the two share: their bridge and hooks name the
// run by the agent process that started them (AgentProcess) instead.
var RunByProcess = map[string]bool{"gemini": true}
