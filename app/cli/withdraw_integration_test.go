//go:build integration

package cli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// askingCall is a command that waits for a card (an interpreter asks in
// the default mode): it creates a file, so a withdrawn card that ran anyway
// would leave it behind.
func askingCall(ws string) map[string]any {
	return map[string]any{"argv": []string{"sh", "-c", "echo ran > made.txt"}}
}

// TestWithdrawnCards: the moment a waiting call's request is cancelled
// (notifications/cancelled, a closed stream, a killed bridge) its card is
// withdrawn, visibly and in the audit, and a late allow runs nothing.
func TestWithdrawnCards(t *testing.T) {
	cases := []struct {
		name   string
		cancel func(t *testing.T, d *clitest.Daemon) (stop func())
	}{
		{"notifications/cancelled", func(t *testing.T, d *clitest.Daemon) func() {
			s := d.MCP(t.Context(), "canceller")
			ctx, cancel := context.WithCancel(t.Context())
			go s.CallTool(ctx, &mcp.CallToolParams{Name: "run_command", Arguments: askingCall(d.Workspace)})
			return cancel
		}},
		{"closed stream", func(t *testing.T, d *clitest.Daemon) func() {
			return rawStatelessCall(t, d)
		}},
		{"killed bridge", func(t *testing.T, d *clitest.Daemon) func() {
			return bridgeCall(t, d)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := clitest.StartAsk(t)
			stop := tc.cancel(t, d)
			a := d.WaitApproval(clitest.CardWait)
			stop()
			clitest.WaitFor(t, 20*time.Second, "the card to be withdrawn", func() bool { return len(d.Pending()) == 0 })
			clitest.WaitFor(t, 10*time.Second, "the approval.withdrawn row", func() bool { return len(d.Events("kind=approval.withdrawn")) == 1 })
			if code := d.Decide(a.ID, "allow", "once", ""); code != 410 {
				t.Fatalf("a late allow answered %d, want 410 Gone", code)
			}
			if _, err := os.Stat(filepath.Join(d.Workspace, "made.txt")); err == nil {
				t.Fatal("the withdrawn call ran")
			}
		})
	}
}

// rawStatelessCall posts a 2026-07-28 tools/call over a raw connection and
// returns a function that closes it, as a client giving up would.
func rawStatelessCall(t *testing.T, d *clitest.Daemon) func() {
	conn, err := net.Dial("tcp", d.Addr)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{
		"name": "run_command", "arguments": askingCall(d.Workspace),
		"_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
			"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "giver-upper", "version": "1"},
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		},
	}})
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: run_command\r\nContent-Length: %d\r\n\r\n%s",
		d.Addr, d.Token("agent"), len(body), body)
	go io.Copy(io.Discard, conn)
	return func() { conn.Close() }
}

// bridgeCall starts `gatehouse mcp`, asks through it, and returns a
// function that kills the bridge with SIGKILL.
func bridgeCall(t *testing.T, d *clitest.Daemon) func() {
	cmd := d.Bridge("--agent", "claude")
	cmd.Env = append(cmd.Env, "CLAUDE_CODE_SESSION_ID=run-to-be-killed")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	w := func(v map[string]any) {
		b, _ := json.Marshal(v)
		in.Write(append(b, '\n'))
	}
	w(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{
		"protocolVersion": clitest.StatefulProtocol, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "bridged", "version": "1"}}})
	r := bufio.NewReader(out)
	if line, err := r.ReadString('\n'); err != nil || !strings.Contains(line, `"result"`) {
		t.Fatalf("initialize through the bridge: %v %q", err, line)
	}
	w(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	w(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": "run_command", "arguments": askingCall(d.Workspace)}})
	go io.Copy(io.Discard, r)
	return func() { cmd.Process.Kill() }
}
