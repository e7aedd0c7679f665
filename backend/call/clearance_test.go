package call_test

import (
	"encoding/json"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/call"
	"github.com/gatehouse-dev/gatehouse/backend/call/calltest"
)

// TestClearedCommandRunsAsThroughMCP: a command cleared by Decide (an
// agent's own shell, through the hook) and run with its clearance gets
// the same sandbox as the same command through MCP: a read-only one
// runs with the workspaces read-only, not staged against an overlay.
func TestClearedCommandRunsAsThroughMCP(t *testing.T) {
	for _, tt := range []struct {
		args     string
		readOnly bool
	}{
		{`{"argv":["true"]}`, true},
		{`{"argv":["ls","-la"]}`, true},
		{`{"argv":["touch","b.txt"]}`, false},
	} {
		t.Run(tt.args, func(t *testing.T) {
			fake := &calltest.Sandbox{}
			f := calltest.New(t, func(d *call.Deps) { d.Sandbox = fake })
			f.Call(t, "run_command", tt.args)
			req := call.Request{State: f.State, Tool: "run_command", Args: json.RawMessage(tt.args), Via: call.ViaHook, Native: "Bash"}
			cl, res := f.Runner.Decide(t.Context(), req)
			if cl == nil {
				t.Fatalf("Decide refused: %s", res.Text)
			}
			cl.Run(t.Context(), req)
			runs := fake.Runs()
			if len(runs) != 2 {
				t.Fatalf("%d runs, want 2", len(runs))
			}
			for i, via := range []string{"MCP", "the clearance"} {
				if got := runs[i].ReadOnlyWorkspaces; got != tt.readOnly {
					t.Errorf("through %s: read-only workspaces %v, want %v", via, got, tt.readOnly)
				}
			}
		})
	}
}
