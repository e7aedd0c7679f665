package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/gatehouse-dev/gatehouse/app/cli/termsafe"
	"github.com/gatehouse-dev/gatehouse/backend/config"
	"github.com/gatehouse-dev/gatehouse/backend/daemon"
	"github.com/gatehouse-dev/gatehouse/backend/datadir"
)

// printNextSteps ends a headless start with what a person does next: open
// the UI, connect an agent, and which directories agents may touch.
func printNextSteps(w io.Writer, addr string, o daemon.Options) {
	// Commands must name a data dir other than the default, or they would
	// talk to another daemon (or none).
	gh := "gatehouse"
	if def, err := config.DefaultDataDir(); err != nil || filepath.Clean(def) != filepath.Clean(o.DataDir) {
		gh += " --data " + termsafe.Argv([]string{o.DataDir})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nGatehouse %s is running at http://%s/\n", Version, addr)
	if len(o.Workspaces) == 0 {
		fmt.Fprintf(&b, "Agents work in the project they start in: the first time one starts in a project, you are asked to allow it (`%s workspaces add DIR` allows the projects below DIR at once).\n", gh)
	} else {
		ws := strings.Join(termsafe.Strings(o.Workspaces), ", ")
		fmt.Fprintf(&b, "Agents work in the project they start in: projects below %s without asking, any other after your approval.\n", ws)
	}
	fmt.Fprintf(&b, "Next:\n")
	fmt.Fprintf(&b, "  open the web UI:       %s open\n", gh)
	fmt.Fprintf(&b, "  connect an agent:      %s install claude   (or codex, gemini, cursor)\n", gh)
	fmt.Fprintf(&b, "  any other MCP client:  http://%s/mcp with the agent token in %s\n", addr, termsafe.String(filepath.Join(o.DataDir, datadir.AgentToken)))
	fmt.Fprint(w, b.String())
}
