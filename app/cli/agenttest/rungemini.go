package agenttest

import (
	"context"
	"os"
	"path/filepath"
)

// NewGemini prepares Gemini CLI with HOME=home (settings in
// home/.gemini/settings.json), talking to m (a Gemini model). Its own
// settings (API-key auth, telemetry and updates off) go into a system
// defaults file, the lowest-precedence source, so settings.json holds only
// what the test (or `gatehouse install`) writes there.
func NewGemini(home string, m *Model) (*CLI, error) {
	c, err := newCLI("gemini", home, m)
	if err != nil {
		return nil, err
	}
	defaults := filepath.Join(home, "gemini-system-defaults.json")
	if err := os.WriteFile(defaults, []byte(`{
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
		"GEMINI_CLI_SYSTEM_DEFAULTS_PATH=" + defaults,
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
