package cli

import "github.com/gatehouse-dev/gatehouse/sandbox/agentbox"

// `gatehouse run` starts the agent through this binary, inside its
// sandbox, as `gatehouse __run-init`: see agentbox.Init.
func init() {
	hiddenEntrypoints["__run-init"] = agentbox.Init
}
