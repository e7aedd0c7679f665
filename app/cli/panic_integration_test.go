//go:build integration

package cli_test

import (
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// TestToolPanicIsAToolError: a panic inside a tool call, on the direct
// path and on the SDK's, comes back as a tool error with its audit row;
// the connection and the daemon carry on.
func TestToolPanicIsAToolError(t *testing.T) {
	t.Setenv("GATEHOUSE_FAULT_PANIC_TOOL", "read_file")
	d := clitest.Start(t)
	s := d.MCP(t.Context(), "panicky")
	agent := d.Token("agent")
	for name, body := range map[string]string{
		"direct": `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"x"}}}`,
		"sdk":    `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"x"},"_meta":{"progressToken":"p"}}}`,
	} {
		r := postMCP(t, d, s.ID(), agent, body, nil)
		if r.status != 200 || !r.result.IsError || len(r.result.Content) == 0 || !strings.Contains(r.result.Content[0].Text, "internal problem") {
			t.Fatalf("%s path: %d %s", name, r.status, r.body)
		}
		callID, _ := r.result.Meta["gatehouse/call_id"].(string)
		rows := callEvents(d, callID)
		if len(rows) == 0 || rows[len(rows)-1]["kind"] != "tool.error" {
			t.Fatalf("%s path: rows %v", name, rows)
		}
	}
	if r := call(t, s, "list_dir", map[string]any{}); r.IsError {
		t.Fatalf("the session broke after the panics: %s", clitest.Text(t, r))
	}
	if !strings.Contains(d.Log(), "tool call panicked") {
		t.Fatal("the panic is not in the daemon's log")
	}
}
