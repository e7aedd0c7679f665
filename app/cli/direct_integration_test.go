//go:build integration

package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// mcpReply is a tools/call answer, from a JSON body or an SSE stream.
type mcpReply struct {
	status      int
	contentType string
	result      struct {
		Meta    map[string]any `json:"_meta"`
		Content []struct {
			Type, Text string
		} `json:"content"`
		Structured map[string]any `json:"structuredContent"`
		IsError    bool           `json:"isError"`
	}
	body string
}

func postMCP(t *testing.T, d *clitest.Daemon, session, token, body string, extra map[string]string) mcpReply {
	t.Helper()
	h := map[string]string{
		"Authorization": "Bearer " + token, "Content-Type": "application/json",
		"Accept": "application/json, text/event-stream", "Mcp-Session-Id": session,
		"Mcp-Protocol-Version": clitest.StatefulProtocol,
	}
	for k, v := range extra {
		h[k] = v
	}
	resp, text := d.Request("POST", "/mcp", strings.NewReader(body), h)
	r := mcpReply{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), body: text}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(line, "data:"))
		var msg struct {
			Result json.RawMessage `json:"result"`
		}
		if strings.HasPrefix(line, "{") && json.Unmarshal([]byte(line), &msg) == nil && msg.Result != nil {
			if err := json.Unmarshal(msg.Result, &r.result); err != nil {
				t.Fatalf("result %s: %v", msg.Result, err)
			}
		}
	}
	return r
}

// Local reads on a Gatehouse session are answered without the SDK's
// JSON-RPC machinery (backend/transport/mcpserver/direct.go). The answer must be the
// one the SDK's path gives, every gate must still apply, and anything the
// direct path does not handle must still reach the SDK and get its answer.
func TestDirectReadPath(t *testing.T) {
	d := clitest.Start(t)
	content := "line one\n<b>two</b> \"quoted\"\n"
	if err := os.WriteFile(filepath.Join(d.Workspace, "notes.txt"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	s := d.MCP(ctx, "direct-test")
	agent := d.Token("agent")
	read := `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"notes.txt"}}}`

	direct := postMCP(t, d, s.ID(), agent, read, nil)
	if direct.status != 200 || direct.contentType != "application/json" {
		t.Fatalf("direct read: %d %s %s", direct.status, direct.contentType, direct.body)
	}
	// With _meta the call goes through the SDK, which answers on a stream.
	viaSDK := postMCP(t, d, s.ID(), agent, `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"notes.txt"},"_meta":{"progressToken":"p"}}}`, nil)
	if viaSDK.status != 200 || viaSDK.contentType != "text/event-stream" {
		t.Fatalf("SDK read: %d %s %s", viaSDK.status, viaSDK.contentType, viaSDK.body)
	}
	for _, r := range []mcpReply{direct, viaSDK} {
		if r.result.IsError || len(r.result.Content) != 1 || r.result.Content[0].Type != "text" || !strings.Contains(r.result.Content[0].Text, "<b>two</b> \"quoted\"") {
			t.Fatalf("read result: %s", r.body)
		}
	}
	if direct.result.Content[0].Text != viaSDK.result.Content[0].Text {
		t.Fatalf("the paths differ:\ndirect %q\nSDK    %q", direct.result.Content[0].Text, viaSDK.result.Content[0].Text)
	}
	delete(direct.result.Structured, "call_id")
	if a, b := mustJSON(direct.result.Structured), mustJSON(viaSDK.result.Structured); a != b {
		t.Fatalf("structured results differ:\n%s\n%s", a, b)
	}
	callID, _ := direct.result.Meta["gatehouse/call_id"].(string)
	if callID == "" {
		t.Fatalf("no call id: %s", direct.body)
	}
	// The audit timeline has the direct call, with its arguments.
	rows := callEvents(d, callID)
	if len(rows) == 0 || rows[len(rows)-1]["kind"] != "tool.result" || !strings.Contains(mustJSON(rows[len(rows)-1]["payload"]), "notes.txt") {
		t.Fatalf("audit rows for %s: %v", callID, rows)
	}

	// Bad arguments: a tool error naming the problem, and an audit row.
	bad := postMCP(t, d, s.ID(), agent, `{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"notes.txt","bogus":1}}}`, nil)
	if bad.status != 200 || !bad.result.IsError || !strings.Contains(bad.result.Content[0].Text, `read_file has no argument "bogus"`) {
		t.Fatalf("bad arguments: %s", bad.body)
	}
	badID, _ := bad.result.Meta["gatehouse/call_id"].(string)
	if k := kinds(callEvents(d, badID)); !strings.Contains(strings.Join(k, ","), "tool.invalid") {
		t.Fatalf("bad arguments audit: %v", k)
	}
	// A path escaping the workspace by a symlink is resolved before policy:
	// outside the workspace, so the person is asked, not answered directly.
	if err := os.Symlink("/etc", filepath.Join(d.Workspace, "out")); err != nil {
		t.Fatal(err)
	}
	done := make(chan mcpReply, 1)
	go func() {
		done <- postMCP(t, d, s.ID(), agent, `{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"out/hostname"}}}`, nil)
	}()
	a := d.WaitApproval(clitest.CardWait)
	if code := d.Decide(a.ID, "deny", "once", "not that"); code != 200 {
		t.Fatalf("deny: %d", code)
	}
	if r := <-done; !r.result.IsError || !strings.Contains(r.result.Content[0].Text, "not that") {
		t.Fatalf("denied read: %s", r.body)
	}

	// What the direct path does not take still gets the SDK's answer.
	h := d.Control()
	h["Content-Type"] = "application/json"
	resp, body := d.Request("POST", "/api/v1/tokens", jsonBody(map[string]string{"name": "other"}), h)
	var other struct{ Token string }
	if resp.StatusCode != 201 || json.Unmarshal([]byte(body), &other) != nil {
		t.Fatalf("create token: %d %s", resp.StatusCode, body)
	}
	cases := []struct {
		name, session, token, body string
		extra                      map[string]string
		status                     int
	}{
		{"another token's session", s.ID(), other.Token, read, nil, 403},
		{"unknown session", "no-such-session", agent, read, nil, 404},
		{"malformed JSON", s.ID(), agent, `{"jsonrpc":"2.0","id":1,`, nil, 400},
		{"missing Accept type", s.ID(), agent, read, map[string]string{"Accept": "application/json"}, 400},
		{"unsupported protocol", s.ID(), agent, read, map[string]string{"Mcp-Protocol-Version": "1999-01-01"}, 400},
		{"wrong content type", s.ID(), agent, read, map[string]string{"Content-Type": "text/plain"}, 415},
	}
	for _, c := range cases {
		r := postMCP(t, d, c.session, c.token, c.body, c.extra)
		if r.status != c.status || r.result.Content != nil {
			t.Errorf("%s: %d %s (want %d and no result)", c.name, r.status, r.body, c.status)
		}
	}
	// The SDK's own client reads the direct answers too.
	if got := clitest.Text(t, call(t, s, "read_file", map[string]any{"path": "notes.txt"})); !strings.Contains(got, "line one") {
		t.Fatalf("SDK client read: %q", got)
	}
}

// callEvents is the audit timeline of one call.
func callEvents(d *clitest.Daemon, callID string) []map[string]any {
	var out []map[string]any
	for _, e := range d.Events("") {
		if e["call_id"] == callID {
			out = append(out, e)
		}
	}
	return out
}
