package agenttest

import (
	"context"
	"path/filepath"
)

// NewCodex prepares Codex CLI with HOME=home and CODEX_HOME=home/.codex,
// talking to m (an OpenAI model). The model provider is passed as -c
// overrides, so config.toml holds only what the test (or `gatehouse
// install`) writes there.
//
// Codex refuses to create its sandbox helper links under /tmp; its native
// shell then fails inside its own sandbox ("codex-linux-sandbox: No such
// file"). Give it a home outside /tmp when a test needs that shell.
func NewCodex(home string, m *Model) (*CLI, error) {
	c, err := newCLI("codex", home, m)
	if err != nil {
		return nil, err
	}
	c.vars = []string{
		"CODEX_HOME=" + filepath.Join(home, ".codex"),
		"AGENTTEST_KEY=agenttest-key",
	}
	return c, nil
}

// codexOverrides point Codex at the scripted model, with every prompt and
// network extra off.
func (c *CLI) codexOverrides() []string {
	kv := []string{
		`model_provider="agenttest"`,
		`model="gpt-5"`,
		`model_providers.agenttest={name="agenttest",base_url="` + c.Model.URL() + `/v1",wire_api="responses",env_key="AGENTTEST_KEY"}`,
		`approval_policy="never"`,
		`check_for_update_on_startup=false`,
		`analytics.enabled=false`,
	}
	var args []string
	for _, s := range kv {
		args = append(args, "-c", s)
	}
	return args
}

// RunCodex runs `codex exec --skip-git-repo-check --json prompt` in dir
// with stdin closed.
func (c *CLI) RunCodex(ctx context.Context, dir, prompt string, extra ...string) (*Result, error) {
	if err := ensureDir(filepath.Join(c.Home, ".codex")); err != nil {
		return nil, err
	}
	args := append([]string{"exec"}, c.codexOverrides()...)
	args = append(args, "--skip-git-repo-check", "--json")
	args = append(args, extra...)
	return c.run(ctx, dir, append(args, prompt)...)
}
