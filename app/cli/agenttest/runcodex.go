package agenttest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"time"
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
		`model_providers.agenttest={name="agenttest",base_url="` + c.modelURL() + `/v1",wire_api="responses",env_key="AGENTTEST_KEY"}`,
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

// CodexHook is one hook as Codex's app-server lists it.
type CodexHook struct {
	Key         string `json:"key"`
	EventName   string `json:"eventName"`
	Command     string `json:"command"`
	Source      string `json:"source"`
	TrustStatus string `json:"trustStatus"`
	Enabled     bool   `json:"enabled"`
}

// CodexHooks asks `codex app-server` (hooks/list) which hooks Codex would
// run in dir, and whether it trusts them.
func (c *CLI) CodexHooks(ctx context.Context, dir string) ([]CodexHook, error) {
	if err := ensureDir(filepath.Join(c.Home, ".codex")); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	argv := append(append(append([]string{}, c.Prefix...), c.Bin), append(c.codexOverrides(), "app-server")...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, c.Environ()
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start codex app-server: %w", err)
	}
	defer func() { in.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	cwd, _ := json.Marshal(dir)
	fmt.Fprintf(in, "%s\n%s\n%s\n",
		`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"agenttest","version":"1"}}}`,
		`{"method":"initialized"}`,
		`{"id":2,"method":"hooks/list","params":{"cwds":[`+string(cwd)+`]}}`)
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var msg struct {
			ID     int `json:"id"`
			Result struct {
				Data []struct {
					Hooks []CodexHook `json:"hooks"`
				} `json:"data"`
			} `json:"result"`
			Error json.RawMessage `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil || msg.ID != 2 {
			continue
		}
		if len(msg.Error) > 0 {
			return nil, fmt.Errorf("hooks/list: %s", msg.Error)
		}
		var hooks []CodexHook
		for _, d := range msg.Result.Data {
			hooks = append(hooks, d.Hooks...)
		}
		return hooks, nil
	}
	return nil, fmt.Errorf("codex app-server gave no hooks/list answer: %v", sc.Err())
}
