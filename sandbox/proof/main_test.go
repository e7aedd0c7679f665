package proof

import (
	"os"
	"testing"

	"github.com/gatehouse-dev/gatehouse/sandbox/agentbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/launch/launchtest"
)

// The test binary doubles as the sandbox helper, as gatehouse does, and
// as `gatehouse __run-init` and the terminal probe for the whole-agent
// battery.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case agentbox.InitEntry:
			os.Exit(agentbox.Init(os.Args[2:]))
		case TerminalProbeEntry:
			os.Exit(TerminalProbe(os.Args[2:]))
		}
	}
	launchtest.Main(m)
}
