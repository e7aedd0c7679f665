//go:build !linux

package proof

import "context"

// TerminalProbeEntry is the gatehouse binary's hidden command for the
// terminal row (Linux only).
const TerminalProbeEntry = "__doctor-tiocsti"

// TerminalProbe is Linux's.
func TerminalProbe([]string) int { return 2 }

func (c *confinedEnv) checkTerminal(context.Context) (Outcome, string) {
	return Unavailable, "whole-agent mode needs Linux"
}
