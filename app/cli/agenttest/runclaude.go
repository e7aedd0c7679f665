package agenttest

import (
	"context"
	"path/filepath"
	"strings"
)

// NewClaude prepares Claude Code with HOME=home and its config in
// home/.claude (CLAUDE_CONFIG_DIR), talking to m (an Anthropic model).
func NewClaude(home string, m *Model) (*CLI, error) {
	c, err := newCLI("claude", home, m)
	if err != nil {
		return nil, err
	}
	c.vars = []string{
		"CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude"),
		"ANTHROPIC_BASE_URL=" + m.URL(),
		"ANTHROPIC_API_KEY=agenttest-key",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1",
		// Otherwise MCP tools hide behind a ToolSearch tool and the model is
		// never offered mcp__gatehouse__* directly.
		"ENABLE_TOOL_SEARCH=false",
	}
	return c, nil
}

// RunClaude runs `claude -p prompt --output-format json` in dir. In -p mode
// a tool runs only when allowed up front, so name every tool the script
// calls in allowed (e.g. "mcp__gatehouse__run_command", "Bash").
func (c *CLI) RunClaude(ctx context.Context, dir, prompt string, allowed []string, extra ...string) (*Result, error) {
	args := []string{"-p", prompt, "--output-format", "json"}
	if len(allowed) > 0 {
		args = append(args, "--allowedTools", strings.Join(allowed, ","))
	}
	return c.run(ctx, dir, append(args, extra...)...)
}
