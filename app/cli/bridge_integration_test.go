//go:build integration

package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// TestStdioBridge: an agent that launches `gatehouse mcp` gets the same
// tools, policy and audit, recorded as a stdio session.
func TestStdioBridge(t *testing.T) {
	d := clitest.Start(t)
	os.WriteFile(filepath.Join(d.Workspace, "x.txt"), []byte("via bridge\n"), 0o644)
	cmd := d.Bridge()
	c := mcp.NewClient(&mcp.Implementation{Name: "stdio-agent", Version: "1"}, nil)
	s, err := c.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: clitest.StatefulProtocol})
	if err != nil {
		t.Fatalf("connect through the bridge: %v", err)
	}
	r := call(t, s, "read_file", map[string]any{"path": "x.txt"})
	if r.IsError || !strings.Contains(clitest.Text(t, r), "via bridge") {
		t.Fatalf("read through bridge: %s", clitest.Text(t, r))
	}
	s.Close()
	out, _, _ := d.CLI(t.Context(), "sessions")
	if !strings.Contains(out, "stdio-agent") {
		t.Fatalf("bridge session not recorded: %s", out)
	}
	if ev := d.Events("kind=session.start"); len(ev) != 1 || !strings.Contains(mustJSON(ev[0]), `"transport":"stdio"`) {
		t.Fatalf("session.start: %v", ev)
	}
}

func TestStdioBridgeWithoutDaemon(t *testing.T) {
	bin := clitest.Binary(t)
	_, stderr, code := clitest.Run(t.Context(), t, bin, os.Environ(), "--data", t.TempDir(), "mcp")
	if code == 0 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, "gatehouse serve") {
		t.Fatalf("want a one-line error naming gatehouse serve, got exit %d: %q", code, stderr)
	}
}
