//go:build integration

package cli_test

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
			notes := func(script string) string {
				t.Helper()
				res, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"argv": []string{"sh", "-c", script}}})
				if err != nil {
					t.Fatal(err)
				}
				m, _ := res.StructuredContent.(map[string]any)
				if out, _ := m["stdout"].(string); !strings.Contains(out, "started") {
					t.Fatalf("%q: %v", script, m)
				}
				ns, _ := m["notes"].([]any)
				var b strings.Builder
				for _, n := range ns {
					b.WriteString(n.(string) + "\n")
				}
				return b.String()
			}
			// Started once the background sleep is itself (exec'd), so
			// the name is sure.
			if got := notes(`sleep 300 & while ! grep -q sleep /proc/$!/cmdline 2>/dev/null; do :; done; echo started`); !strings.Contains(got, "left sleep running in the background") {
				t.Errorf("the agent was not told its background sleep was ended: %q", got)
			}
			if got := notes("sleep 0.1 & wait; echo started"); strings.Contains(got, "in the background") {
				t.Errorf("a command that left nothing was told it did: %q", got)
			}
		})
	}
}
