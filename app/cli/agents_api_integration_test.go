//go:build integration

package cli_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// isolatedHome points HOME (and the agents' own overrides) at a temp dir,
// so the daemon and the CLI edit only test files.
func isolatedHome(t *testing.T) string {
	clitest.Binary(t) // built first: go build needs the real HOME's caches
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, k := range []string{"CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "GEMINI_CLI_SYSTEM_SETTINGS_PATH"} {
		t.Setenv(k, "")
	}
	return home
}

// mcpStatus is the status of an MCP request made with tok.
func mcpStatus(t *testing.T, d *clitest.Daemon, tok string) int {
	t.Helper()
	// Only the status matters: the gate answers 401 before any MCP.
	resp, _ := d.Request(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), map[string]string{
		"Authorization": "Bearer " + tok, "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
	})
	return resp.StatusCode
}

func TestAgentsAPIInstallAndTokens(t *testing.T) {
	home := isolatedHome(t)
	d := clitest.Start(t)
	ctl := d.Control()
	ctl["Content-Type"] = "application/json"

	resp, body := d.Request(http.MethodGet, "/api/v1/agents", nil, ctl)
	if resp.StatusCode != 200 || !strings.Contains(body, `"name":"claude"`) || strings.Contains(body, `"installed":true`) {
		t.Fatalf("GET /api/v1/agents before install: %d %s", resp.StatusCode, body)
	}

	resp, body = d.Request(http.MethodPost, "/api/v1/agents/claude/install", strings.NewReader(`{"scope":"user"}`), ctl)
	if resp.StatusCode != 200 {
		t.Fatalf("install: %d %s", resp.StatusCode, body)
	}
	settings := filepath.Join(home, ".claude", "settings.json")
	b, err := os.ReadFile(settings)
	if err != nil || !strings.Contains(string(b), " hook claude --data "+d.Data) {
		t.Fatalf("settings.json after install: %v\n%s", err, b)
	}
	tokFile := filepath.Join(d.Data, "tokens", "claude.token")
	tok, err := os.ReadFile(tokFile)
	if err != nil {
		t.Fatalf("no claude token: %v", err)
	}
	claudeTok := strings.TrimSpace(string(tok))
	// Registered at once, while the daemon runs.
	if code := mcpStatus(t, d, claudeTok); code == 401 {
		t.Fatalf("the claude token opens /mcp with status %d, want 200", code)
	}
	var list struct {
		Agents []struct {
			Name      string `json:"name"`
			Installed bool   `json:"installed"`
			Scope     string `json:"scope"`
		} `json:"agents"`
	}
	_, body = d.Request(http.MethodGet, "/api/v1/agents", nil, ctl)
	_ = json.Unmarshal([]byte(body), &list)
	if len(list.Agents) != 4 || list.Agents[0].Name != "claude" || !list.Agents[0].Installed || list.Agents[0].Scope != "user" {
		t.Fatalf("agents after install: %s", body)
	}

	resp, body = d.Request(http.MethodPost, "/api/v1/agents/claude/install", nil, ctl)
	if resp.StatusCode != 200 || strings.Contains(body, `"written"`) || strings.Contains(body, `"created"`) {
		t.Fatalf("second install must change nothing: %d %s", resp.StatusCode, body)
	}

	for _, bad := range []struct{ path, want string }{
		{"/api/v1/agents/opencode/install", "unknown agent"},
		{"/api/v1/agents/codex/uninstall", "not installed"},
	} {
		resp, body = d.Request(http.MethodPost, bad.path, nil, ctl)
		if resp.StatusCode < 400 || !strings.Contains(body, bad.want) {
			t.Fatalf("POST %s: %d %s, want an error saying %q", bad.path, resp.StatusCode, body, bad.want)
		}
	}
	resp, _ = d.Request(http.MethodPost, "/api/v1/agents/claude/install", strings.NewReader(`{"scope":"machine"}`), ctl)
	if resp.StatusCode != 400 {
		t.Fatalf("an unknown scope: %d", resp.StatusCode)
	}

	resp, body = d.Request(http.MethodPost, "/api/v1/agents/claude/uninstall", nil, ctl)
	if resp.StatusCode != 200 {
		t.Fatalf("uninstall: %d %s", resp.StatusCode, body)
	}
	if _, err := os.Stat(settings); !os.IsNotExist(err) {
		t.Fatalf("settings.json that install created is still there: %v", err)
	}
	if _, err := os.Stat(tokFile); !os.IsNotExist(err) {
		t.Fatalf("token file survived uninstall: %v", err)
	}
	if code := mcpStatus(t, d, claudeTok); code != 401 {
		t.Fatalf("the uninstalled agent's token still opens /mcp: %d", code)
	}
}

// TestInstallWithDaemonStopped: a token file made by `gatehouse install`
// while no daemon runs works once the daemon starts, and a deleted one
// stops working at the next start.
func TestInstallWithDaemonStopped(t *testing.T) {
	isolatedHome(t)
	d := clitest.Start(t)
	d.Stop()
	out, errOut, code := clitest.Run(t.Context(), t, d.Bin, d.Env(), "--data", d.Data, "install", "gemini")
	if code != 0 || !strings.Contains(out, "Wired Gatehouse into Gemini CLI") {
		t.Fatalf("install: %d\n%s%s", code, out, errOut)
	}
	out, _, _ = clitest.Run(t.Context(), t, d.Bin, d.Env(), "--data", d.Data, "install", "gemini")
	if !strings.Contains(out, "already installed") {
		t.Fatalf("second install: %s", out)
	}
	d.Restart()
	tok := strings.TrimSpace(mustRead(t, filepath.Join(d.Data, "tokens", "gemini.token")))
	if code := mcpStatus(t, d, tok); code == 401 {
		t.Fatalf("gemini token after restart: %d", code)
	}
	d.Stop()
	out, errOut, code = clitest.Run(t.Context(), t, d.Bin, d.Env(), "--data", d.Data, "install", "gemini", "--uninstall")
	if code != 0 || !strings.Contains(out, "as they were before install") {
		t.Fatalf("uninstall: %d\n%s%s", code, out, errOut)
	}
	_, errOut, code = clitest.Run(t.Context(), t, d.Bin, d.Env(), "--data", d.Data, "install", "gemini", "--uninstall")
	if code == 0 || !strings.Contains(errOut, "not installed") {
		t.Fatalf("uninstall without install: %d %s", code, errOut)
	}
	d.Restart()
	if code := mcpStatus(t, d, tok); code != 401 {
		t.Fatalf("a deleted token file still opens /mcp after restart: %d", code)
	}
}
