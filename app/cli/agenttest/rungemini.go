package agenttest

import (
	"context"
	"os"
	"path/filepath"
)

// NewGemini prepares Gemini CLI with HOME=home, talking to m (a Gemini
// model). Its own settings (API-key auth, telemetry and updates off) start
// home/.gemini/settings.json; `gatehouse install` adds to that file. (A
// system defaults file would keep them apart, but Gemini CLI ignores one
// under a world-writable /tmp.)
func NewGemini(home string, m *Model) (*CLI, error) {
	c, err := newCLI("gemini", home, m)
	if err != nil {
		return nil, err
	}
	settings := filepath.Join(home, ".gemini", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o700); err != nil {
		return nil, err
	}
	if err := os.WriteFile(settings, []byte(`{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "telemetry": {"enabled": false},
  "privacy": {"usageStatisticsEnabled": false},
  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false}
}
`), 0o600); err != nil {
		return nil, err
	}
	c.vars = []string{
		"GOOGLE_GEMINI_BASE_URL=" + m.URL(),
		"GEMINI_API_KEY=agenttest-key",
		// Headless runs in an untrusted folder exit 55.
		"GEMINI_CLI_TRUST_WORKSPACE=true",
		"GEMINI_CLI_NO_RELAUNCH=true",
	}
	return c, nil
}

// RunGemini runs `gemini -p prompt` in dir. Pass "--approval-mode", "yolo"
// in extra to be offered the native run_shell_command.
func (c *CLI) RunGemini(ctx context.Context, dir, prompt string, extra ...string) (*Result, error) {
	args := append([]string{"-p", prompt, "--output-format", "json"}, extra...)
	return c.run(ctx, dir, args...)
}

func ensureDir(d string) error { return os.MkdirAll(d, 0o700) }
