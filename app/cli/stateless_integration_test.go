//go:build integration

package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// TestStatelessClient: a 2026-07-28 client (no sessions, no initialize) is
// served on the same /mcp endpoint and gets one Gatehouse session.
func TestStatelessClient(t *testing.T) {
	d := clitest.StartAsk(t)
	c := mcp.NewClient(&mcp.Implementation{Name: "new-protocol", Version: "1"}, nil)
	s, err := c.Connect(t.Context(), d.MCPTransport(), &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatalf("connect with 2026-07-28: %v", err)
	}
	defer s.Close()
	if v := s.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("negotiated %q", v)
	}
	tools, err := s.ListTools(t.Context(), nil)
	if err != nil || len(tools.Tools) != 8 {
		t.Fatalf("tools/list: %v %d", err, len(tools.Tools))
	}
	for i := 0; i < 2; i++ {
		if r := call(t, s, "list_dir", map[string]any{}); r.IsError {
			t.Fatalf("list_dir: %s", clitest.Text(t, r))
		}
	}
	r := callApproving(t, d, s, "run_command", map[string]any{"argv": []string{"sh", "-c", "echo stateless-ok"}})
	if r.IsError || !strings.Contains(clitest.Text(t, r), "stateless-ok") {
		t.Fatalf("approved call: %s", clitest.Text(t, r))
	}
	out, _, _ := d.CLI(t.Context(), "sessions", "--json")
	var list []struct {
		Transport  string `json:"transport"`
		ClientName string `json:"client_name"`
		Calls      int    `json:"calls"`
	}
	json.Unmarshal([]byte(out), &list)
	if len(list) != 1 || list[0].Transport != "http-stateless" || list[0].ClientName != "new-protocol" || list[0].Calls != 3 {
		t.Fatalf("sessions: %s", out)
	}
}
