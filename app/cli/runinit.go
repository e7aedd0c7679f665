package cli

import (
	"github.com/gatehouse-dev/gatehouse/sandbox/agentbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/proof"
)

// `gatehouse run` starts the agent through the stand-alone sandbox helper
// next to this binary or, without one, through this binary, inside its
// sandbox, as `gatehouse __run-init`: see agentbox.Init. The doctor's
// whole-agent rows start their terminal probe through it too.
func init() {
	hiddenEntrypoints[agentbox.InitEntry] = agentbox.Init
	hiddenEntrypoints[proof.TerminalProbeEntry] = proof.TerminalProbe
}
