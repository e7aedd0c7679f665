//go:build integration

package cli_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

func jsonBody(v any) *strings.Reader {
	b, _ := json.Marshal(v)
	return strings.NewReader(string(b))
}

func TestPolicyAPI(t *testing.T) {
	d := clitest.StartAsk(t)
	h := d.Control()
	h["Content-Type"] = "application/json"
	resp, body := d.Request("PUT", "/api/v1/policy", jsonBody(map[string]string{"text": "[[rule]]\nid = \"x\"\naction = \"allow\"\ntool = \"run_command\"\nbinary = \"/usr/bin/make\"\nbogus = 1\n"}), h)
	if resp.StatusCode != 400 || !strings.Contains(body, "bogus") {
		t.Fatalf("bad policy accepted: %d %s", resp.StatusCode, body)
	}
	test := map[string]any{"tool": "run_command", "argv": []string{"make", "test"}}
	_, body = d.Request("POST", "/api/v1/policy/test", jsonBody(test), h)
	if !strings.Contains(body, `"verdict":"ask"`) {
		t.Fatalf("make before the rule: %s", body)
	}
	good := "# mine\n[[rule]]\nid = \"make-test\"\naction = \"allow\"\ntool = \"run_command\"\nbinary = \"/usr/bin/make\"\nargs = [\"test\"]\nreason = \"ours\"\n"
	resp, body = d.Request("PUT", "/api/v1/policy", jsonBody(map[string]string{"text": good}), h)
	if resp.StatusCode != 200 || !strings.Contains(body, "make-test") {
		t.Fatalf("good policy: %d %s", resp.StatusCode, body)
	}
	_, body = d.Request("POST", "/api/v1/policy/test", jsonBody(test), h)
	if !strings.Contains(body, `"verdict":"allow"`) || !strings.Contains(body, "make-test") {
		t.Fatalf("make after the rule: %s", body)
	}
	_, body = d.Request("GET", "/api/v1/policy", nil, h)
	if !strings.Contains(body, "# mine") || !strings.Contains(body, `"source":"builtin"`) {
		t.Fatalf("GET policy: %s", body)
	}
}

func TestAgentTokensAndLoginLinks(t *testing.T) {
	d := clitest.StartAsk(t)
	h := d.Control()
	h["Content-Type"] = "application/json"
	resp, body := d.Request("POST", "/api/v1/tokens", jsonBody(map[string]string{"name": "cursor"}), h)
	var created struct{ ID, Token string }
	if resp.StatusCode != 201 || json.Unmarshal([]byte(body), &created) != nil || len(created.Token) != 64 {
		t.Fatalf("create token: %d %s", resp.StatusCode, body)
	}
	mcpInit := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	mcpHdr := map[string]string{"Authorization": "Bearer " + created.Token, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
	if resp, body := d.Request("POST", "/mcp", strings.NewReader(mcpInit), mcpHdr); resp.StatusCode != 200 {
		t.Fatalf("new token on /mcp: %d %s", resp.StatusCode, body)
	}
	if resp, _ := d.Request("GET", "/api/v1/sessions", nil, map[string]string{"Authorization": "Bearer " + created.Token}); resp.StatusCode != 401 {
		t.Fatal("an agent token opened the control API")
	}
	if resp, body := d.Request("DELETE", "/api/v1/tokens/"+created.ID, nil, h); resp.StatusCode != 200 {
		t.Fatalf("revoke: %d %s", resp.StatusCode, body)
	}
	if resp, _ := d.Request("POST", "/mcp", strings.NewReader(mcpInit), mcpHdr); resp.StatusCode != 401 {
		t.Fatalf("revoked token still opens /mcp: %d", resp.StatusCode)
	}
	if resp, _ := d.Request("POST", "/api/v1/tokens", jsonBody(map[string]string{"name": "Bad Name!"}), h); resp.StatusCode != 400 {
		t.Fatal("bad token name accepted")
	}

	// gatehouse open: a fresh one-time code in the URL fragment. It opens
	// the login route once, for a browser token of its own, and nothing else.
	out, stderr, code := d.CLI(t.Context(), "open", "--browser=false")
	i := strings.Index(out, "#login=")
	if code != 0 || i < 0 || !strings.HasPrefix(out, "http://"+d.Addr+"/") {
		t.Fatalf("open: %q", out)
	}
	if zone := time.Now().Format("MST"); !strings.Contains(stderr, zone) {
		t.Errorf("open's expiry time carries no zone (%s): %q", zone, stderr)
	}
	login := strings.TrimSpace(out[i+len("#login="):])
	if login == d.Token("control") {
		t.Fatal("the login link carries the long-lived control token")
	}
	if resp, _ := d.Request("GET", "/api/v1/status", nil, map[string]string{"Authorization": "Bearer " + login}); resp.StatusCode != 401 {
		t.Fatalf("a login link's code opened the control API: %d", resp.StatusCode)
	}
	if resp, _ := d.Request("POST", "/mcp", strings.NewReader(mcpInit), map[string]string{"Authorization": "Bearer " + login, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}); resp.StatusCode != 401 {
		t.Fatal("a login link's code opened /mcp")
	}
	resp, body = d.Request("POST", "/api/v1/login", nil, map[string]string{"Authorization": "Bearer " + login})
	var signedIn struct {
		Token string `json:"token"`
	}
	if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &signedIn) != nil || signedIn.Token == "" || signedIn.Token == login {
		t.Fatalf("first use of the link: %d %s", resp.StatusCode, body)
	}
	if resp, _ := d.Request("GET", "/api/v1/status", nil, map[string]string{"Authorization": "Bearer " + signedIn.Token}); resp.StatusCode != 200 {
		t.Fatalf("the browser token from the link on the control API: %d", resp.StatusCode)
	}
	if resp, _ := d.Request("POST", "/mcp", strings.NewReader(mcpInit), map[string]string{"Authorization": "Bearer " + signedIn.Token, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}); resp.StatusCode != 401 {
		t.Fatal("a browser token opened /mcp")
	}
	resp, body = d.Request("POST", "/api/v1/login", nil, map[string]string{"Authorization": "Bearer " + login})
	if resp.StatusCode != 401 || !strings.Contains(body, "already used") {
		t.Fatalf("second use of the link: %d %s; want 401 saying it was used", resp.StatusCode, body)
	}
	if resp, _ := d.Request("POST", "/api/v1/login", nil, d.Control()); resp.StatusCode != 401 {
		t.Fatalf("the control token on the login route: %d", resp.StatusCode)
	}
	// The UI itself is served without a token, under a strict CSP.
	resp, body = d.Request("GET", "/", nil, nil)
	if resp.StatusCode != 200 || !strings.Contains(body, "<html") || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "connect-src 'self'") {
		t.Fatalf("UI: %d %q %v", resp.StatusCode, body[:min(len(body), 80)], resp.Header)
	}
	if resp, _ := d.Request("POST", "/", strings.NewReader("x"), nil); resp.StatusCode != 401 && resp.StatusCode != 405 {
		t.Fatalf("POST / = %d", resp.StatusCode)
	}
}
