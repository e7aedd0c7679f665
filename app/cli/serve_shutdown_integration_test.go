//go:build integration

package cli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// TestServeStopDeniesWaitingCalls: SIGTERM with calls waiting on cards
// denies each, answers its agent with the denial, and records both the
// decision and the result before the audit store closes.
func TestServeStopDeniesWaitingCalls(t *testing.T) {
	d := clitest.StartAsk(t) // sh raises a card in ask mode
	// A client that reconnects its event stream, as agents' clients do:
	// one that gives up at once fails its calls the moment the stream ends
	// at the stop, racing the denial sent on the call's own response.
	tr := d.MCPTransport()
	tr.MaxRetries = 0 // the SDK's default: it reconnects
	s, err := mcp.NewClient(&mcp.Implementation{Name: "waiting-at-stop", Version: "1.0"}, nil).Connect(t.Context(),
		tr, &mcp.ClientSessionOptions{ProtocolVersion: clitest.StatefulProtocol})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	type outcome struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
		defer cancel()
		r, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"argv": []string{"sh", "-c", "echo never"}}})
		done <- outcome{r, err}
	}()
	ap := d.WaitApproval(clitest.CardWait)

	st := d.Signal(syscall.SIGTERM, 30*time.Second)
	if code := st.ExitCode(); code != 0 {
		t.Fatalf("exit status %d after SIGTERM:\n%s", code, d.Log())
	}
	var o outcome
	select {
	case o = <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("the waiting agent got no answer after the daemon stopped:\n%s", d.Log())
	}
	if o.err != nil {
		t.Fatalf("the waiting call failed instead of being denied: %v\n%s", o.err, d.Log())
	}
	text := clitest.Text(t, o.res)
	if !o.res.IsError || !strings.Contains(text, "Gatehouse was stopped") {
		t.Fatalf("the waiting call's answer is not the shutdown denial: error=%v %q", o.res.IsError, text)
	}
	if strings.Contains(d.Log(), "audit store is closed") {
		t.Fatalf("events were lost after the audit store closed:\n%s", d.Log())
	}

	// With the daemon stopped, the database itself says what happened.
	out, errOut, code := d.CLI(t.Context(), "audit", "verify")
	if code != 0 {
		t.Fatalf("audit verify: %d %s %s", code, out, errOut)
	}
	out, errOut, code = d.CLI(t.Context(), "audit", "export")
	if code != 0 {
		t.Fatalf("audit export: %d %s", code, errOut)
	}
	var decided, result, stopped bool
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e struct {
			Kind    string         `json:"kind"`
			CallID  string         `json:"call_id"`
			Payload map[string]any `json:"payload"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("export line %q: %v", sc.Text(), err)
		}
		switch {
		case e.Kind == "approval.decided" && e.Payload["approval"] == ap.ID:
			decided = true
			if e.Payload["by"] != "system:shutdown" || e.Payload["status"] != "denied" {
				t.Errorf("approval.decided %v, want denied by system:shutdown", e.Payload)
			}
		case (e.Kind == "tool.result" || e.Kind == "tool.denied") && e.CallID == ap.CallID:
			if decided {
				result = true
			}
		case e.Kind == "system.stop":
			stopped = result
		}
	}
	if !decided || !result || !stopped {
		t.Fatalf("audit after the stop: approval.decided %v, then the call's result %v, then system.stop %v; export:\n%s", decided, result, stopped, out)
	}
	t.Logf("daemon log:\n%s", d.Log())
}
