//go:build integration

package cli_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
	"github.com/gatehouse-dev/gatehouse/app/cli/clitest/node"
)

// TestConformanceServerScenarios runs the official MCP conformance suite
// (npm @modelcontextprotocol/conformance, pinned in clitest/node) against the
// real daemon's /mcp. The suite cannot send headers, so the daemon runs with
// the hidden --test-only-query-token flag and the agent token rides in the
// URL.
func TestConformanceServerScenarios(t *testing.T) {
	env := node.Install(t)
	d := clitest.Start(t, "--test-only-query-token")
	url := "http://" + d.Addr + "/mcp?access_token=" + d.Token("agent")
	if !strings.Contains(d.Log(), "WARNING: --test-only-query-token") {
		t.Errorf("the daemon did not warn that the test-only flag is on:\n%s", d.Log())
	}
	home := t.TempDir()
	for _, scenario := range []string{"server-initialize", "tools-list", "dns-rebinding-protection"} {
		t.Run(scenario, func(t *testing.T) {
			out := t.TempDir()
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()
			r := env.Run(ctx, t, home, "conformance", "server", "--url", url, "--scenario", scenario, "--output-dir", out)
			checks := readChecks(t, out)
			if r.Code != 0 {
				t.Fatalf("conformance scenario %s failed:\n%s\n--- checks.json ---\n%s", scenario, r, checks)
			}
			var list []struct {
				ID     string `json:"id"`
				Status string `json:"status"`
			}
			if err := json.Unmarshal([]byte(checks), &list); err != nil {
				t.Fatalf("checks.json: %v\n%s\n%s", err, checks, r)
			}
			if len(list) == 0 {
				t.Fatalf("scenario %s ran no checks:\n%s", scenario, r)
			}
			for _, c := range list {
				if c.Status != "SUCCESS" {
					t.Errorf("check %s: %s", c.ID, c.Status)
				}
			}
			if t.Failed() {
				t.Logf("conformance output:\n%s\n--- checks.json ---\n%s", r, checks)
			}
		})
	}
}

// readChecks returns the checks.json the suite wrote under dir.
func readChecks(t *testing.T, dir string) string {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(dir, "*", "checks.json"))
	if len(matches) != 1 {
		return "(no single checks.json: " + strings.Join(matches, ", ") + ")"
	}
	b, err := os.ReadFile(matches[0])
	if err != nil {
		return "(" + err.Error() + ")"
	}
	return string(b)
}

// TestQueryTokenOffByDefault: without the hidden flag a token in the URL opens
// nothing, and the flag does not appear in any help text.
func TestQueryTokenOffByDefault(t *testing.T) {
	d := clitest.Start(t)
	agent := d.Token("agent")
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"query-token-probe","version":"1"}}}`
	mcpHeaders := func() map[string]string {
		return map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
	}

	// Control: the very same request with the token in the header works.
	h := mcpHeaders()
	h["Authorization"] = "Bearer " + agent
	if resp, body := d.Request("POST", "/mcp", strings.NewReader(init), h); resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize with a bearer header: HTTP %d %s", resp.StatusCode, body)
	}

	for _, c := range []struct{ method, body string }{{"POST", init}, {"GET", ""}} {
		resp, body := d.Request(c.method, "/mcp?access_token="+agent, strings.NewReader(c.body), mcpHeaders())
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s /mcp?access_token=<agent token> without the flag: HTTP %d, want 401: %s", c.method, resp.StatusCode, body)
		}
		if wa := resp.Header.Get("WWW-Authenticate"); strings.Contains(wa, "resource_metadata") {
			t.Errorf("401 carries OAuth metadata: %q", wa)
		}
	}
	if strings.Contains(d.Log(), "--test-only-query-token accepts tokens") {
		t.Errorf("daemon without the flag printed the query-token warning:\n%s", d.Log())
	}

	for _, args := range [][]string{{"serve", "--help"}, {"--help"}} {
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		stdout, stderr, code := clitest.Run(ctx, t, d.Bin, d.Env(), args...)
		cancel()
		help := stdout + stderr
		if code != 0 || !strings.Contains(help, "--listen") {
			t.Fatalf("gatehouse %v: exit %d, no --listen in:\n%s", args, code, help)
		}
		for _, hidden := range []string{"test-only-query-token", "access_token", "query-token"} {
			if strings.Contains(help, hidden) {
				t.Errorf("gatehouse %v lists the hidden flag (%q):\n%s", args, hidden, help)
			}
		}
	}
}
