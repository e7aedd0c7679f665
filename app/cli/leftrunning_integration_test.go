//go:build integration

package cli_test

import (
	"strings"
	"testing"
)

// TestCommandSaysWhatItLeftRunning: a command that starts something in
// the background and exits (a dev server with `&`) has it ended with it,
// on every backend, and the agent is told so, by program name, rather than
// taking the server for one that is up; a command that leaves nothing is
// told nothing.
func TestCommandSaysWhatItLeftRunning(t *testing.T) {
	for _, backend := range runBackends {
		t.Run(backend, func(t *testing.T) {
			d := startRunDaemon(t, backend, "")
			s := d.MCP(t.Context(), "left-"+backend)
			// Started once the background sleep is itself (exec'd), so the
			// name is sure.
			out, _ := runCmd(t, s, "sh", "-c", `sleep 300 & while ! grep -q sleep /proc/$!/cmdline 2>/dev/null; do :; done; echo started`)
			if !strings.Contains(out, "started") || !strings.Contains(out, "gatehouse: the command left sleep running in the background") {
				t.Errorf("the agent was not told its background sleep was ended:\n%s", out)
			}
			if out, _ := runCmd(t, s, "sh", "-c", "sleep 0.1 & wait; echo started"); !strings.Contains(out, "started") || strings.Contains(out, "in the background") {
				t.Errorf("a command that left nothing was told it did:\n%s", out)
			}
		})
	}
}
