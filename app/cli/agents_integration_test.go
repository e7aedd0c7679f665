//go:build integration

package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	pngenc "image/png"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/agenttest"
	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// realAgent is one pinned agent CLI, driven by a scripted model.
type realAgent struct {
	name string
	api  agenttest.API
	// tool is Gatehouse's run_command as this CLI names it to the model.
	tool string
	new  func(home string, m *agenttest.Model) (*agenttest.CLI, error)
	run  func(ctx context.Context, c *agenttest.CLI, dir, prompt string) (*agenttest.Result, error)
}

var realAgents = []realAgent{
	{"claude", agenttest.Anthropic, "mcp__gatehouse__run_command", agenttest.NewClaude,
		func(ctx context.Context, c *agenttest.CLI, dir, prompt string) (*agenttest.Result, error) {
			return c.RunClaude(ctx, dir, prompt, []string{"mcp__gatehouse__run_command"})
		}},
	{"codex", agenttest.OpenAI, "mcp__gatehouse__run_command", agenttest.NewCodex,
		func(ctx context.Context, c *agenttest.CLI, dir, prompt string) (*agenttest.Result, error) {
			return c.RunCodex(ctx, dir, prompt)
		}},
	{"gemini", agenttest.Gemini, "mcp_gatehouse_run_command", agenttest.NewGemini,
		func(ctx context.Context, c *agenttest.CLI, dir, prompt string) (*agenttest.Result, error) {
			return c.RunGemini(ctx, dir, prompt)
		}},
}

// TestInstalledAgentSeesRunCommandOutput installs Gatehouse into each real
// CLI's own config with `gatehouse install`, has the scripted model call
// run_command ["cat","a.txt"] through the MCP entry install wrote, and
// checks that the model's next request carries the file's text.
func TestInstalledAgentSeesRunCommandOutput(t *testing.T) {
	for _, ag := range realAgents {
		t.Run(ag.name, func(t *testing.T) {
			d := clitest.Start(t)
			const secret = "the quick brown fox from a.txt"
			if err := os.WriteFile(filepath.Join(d.Workspace, "a.txt"), []byte(secret+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			model := agenttest.StartModel(t, ag.api, agenttest.Script{
				agenttest.Call(ag.tool, map[string]any{"argv": []string{"cat", "a.txt"}}),
				agenttest.Say("done"),
			})
			cli := pinnedAgent(t, ag.name+" CLI", ag.new, filepath.Join(t.TempDir(), "home"), model)
			ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
			defer cancel()

			out, errOut, code := clitest.Run(ctx, t, d.Bin, cli.Environ(), "--data", d.Data, "install", ag.name)
			if code != 0 {
				t.Fatalf("gatehouse install %s: exit %d\n%s%s", ag.name, code, out, errOut)
			}
			if _, err := os.Stat(filepath.Join(d.Data, "tokens", ag.name+".token")); err != nil {
				t.Fatalf("install made no agent token: %v", err)
			}

			start := time.Now()
			res, err := ag.run(ctx, cli, d.Workspace, "Show me a.txt")
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range res.Requests {
				t.Logf("+%v %s %s (%d tool results)", q.At.Sub(start).Round(time.Millisecond), q.Method, q.Path, len(q.ToolResults))
				if os.Getenv("AGENTTEST_DUMP") != "" {
					t.Logf("%s", q.Body)
				}
			}
			offered := false
			for _, q := range res.Requests {
				for _, o := range q.Offered {
					offered = offered || o == ag.tool
				}
			}
			if !offered {
				t.Fatalf("%s never offered the model %s; tools offered: %v\n%s", ag.name, ag.tool, lastOffered(res), res)
			}
			results := res.ToolResults()
			if len(results) == 0 {
				t.Fatalf("%s returned no tool result to the model\n%s\ndaemon log:\n%s", ag.name, res, d.Log())
			}
			if !res.ModelSaw(secret) {
				t.Fatalf("the model never saw run_command's stdout; what it saw:\n%s", strings.Join(results, "\n---\n"))
			}
		})
	}
}

func lastOffered(r *agenttest.Result) []string {
	for i := len(r.Requests) - 1; i >= 0; i-- {
		if len(r.Requests[i].Offered) > 0 {
			return r.Requests[i].Offered
		}
	}
	return nil
}

// TestCodexTrustsInstalledHooks: Codex runs a user hook only once it is
// trusted; `gatehouse install codex` writes the trust entries itself, and
// Codex's own app-server must report both hooks as trusted. A --system
// install's hooks (in /etc/codex/requirements.toml, bind-mounted from a temp
// dir in a private mount namespace) are managed: they need no trust.
func TestCodexTrustsInstalledHooks(t *testing.T) {
	for _, c := range []struct{ scope, want string }{{"user", "trusted"}, {"system", "managed"}} {
		t.Run(c.scope, func(t *testing.T) {
			var prefix []string
			if c.scope == "system" {
				if os.Geteuid() != 0 {
					t.Skip("needs root: /etc/codex is bind-mounted from a temp dir in a private mount namespace")
				}
				if err := os.MkdirAll("/etc/codex", 0o755); err != nil {
					t.Fatal(err)
				}
				prefix = []string{"unshare", "--mount", "--propagation", "private", "sh", "-c", `mount --bind "$0" /etc/codex && exec "$@"`, t.TempDir()}
			}
			d := clitest.Start(t)
			model := agenttest.StartModel(t, agenttest.OpenAI, agenttest.Script{agenttest.Say("done")})
			cli := pinnedAgent(t, "Codex CLI", agenttest.NewCodex, filepath.Join(t.TempDir(), "home"), model)
			cli.Prefix = prefix
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			argv := append(append([]string{}, prefix...), d.Bin, "--data", d.Data, "install", "codex")
			if c.scope == "system" {
				argv = append(argv, "--system")
			}
			if out, errOut, code := clitest.Run(ctx, t, argv[0], cli.Environ(), argv[1:]...); code != 0 {
				t.Fatalf("install: %d\n%s%s", code, out, errOut)
			}
			hooks, err := cli.CodexHooks(ctx, d.Workspace)
			if err != nil {
				t.Fatal(err)
			}
			status := map[string]string{}
			for _, h := range hooks {
				if strings.Contains(h.Command, " hook codex --data ") {
					status[h.EventName] = h.TrustStatus
				}
			}
			if status["preToolUse"] != c.want || status["postToolUse"] != c.want {
				t.Fatalf("Codex's view of Gatehouse's hooks: %v, want %s (all hooks: %+v)", status, c.want, hooks)
			}
		})
	}
}

// TestInstalledAgentOwnShellRunsInSandbox: after `gatehouse install`, an
// agent's own shell tool is cleared by its hook, rewritten to `gatehouse
// exec`, and run in the session's sandbox, and the model sees the output.
// The hook and exec must present the same (installed) agent token, or the
// daemon refuses the ticket.
// shellAgent is a real agent CLI whose own shell tool runs a command.
type shellAgent struct {
	name string
	api  agenttest.API
	call agenttest.Step
	new  func(home string, m *agenttest.Model) (*agenttest.CLI, error)
	run  func(ctx context.Context, c *agenttest.CLI, dir string) (*agenttest.Result, error)
}

// shellAgents are the three real agents, each running `echo marker $HOME`
// with its own shell tool.
func shellAgents(marker string) []shellAgent {
	return []shellAgent{
		{"claude", agenttest.Anthropic, agenttest.Call("Bash", map[string]any{"command": "echo " + marker + " $HOME", "description": "Say where it runs"}), agenttest.NewClaude,
			func(ctx context.Context, c *agenttest.CLI, dir string) (*agenttest.Result, error) {
				return c.RunClaude(ctx, dir, "say where you run", []string{"Bash"})
			}},
		{"gemini", agenttest.Gemini, agenttest.Call("run_shell_command", map[string]any{"command": "echo " + marker + " $HOME"}), agenttest.NewGemini,
			func(ctx context.Context, c *agenttest.CLI, dir string) (*agenttest.Result, error) {
				return c.RunGemini(ctx, dir, "say where you run", "--approval-mode", "yolo")
			}},
		{"codex", agenttest.OpenAI, agenttest.Call("exec_command", map[string]any{"cmd": "echo " + marker + " $HOME"}), agenttest.NewCodex,
			func(ctx context.Context, c *agenttest.CLI, dir string) (*agenttest.Result, error) {
				// Codex's own sandbox (read-only, no network, by default) is
				// where it runs the `gatehouse exec` its hook wrote, which must
				// reach the daemon: README, "The agents' own tools go through
				// Gatehouse too".
				return c.RunCodex(ctx, dir, "say where you run", "-c", `sandbox_mode="workspace-write"`, "-c", "sandbox_workspace_write.network_access=true")
			}},
	}
}

func TestInstalledAgentOwnShellRunsInSandbox(t *testing.T) {
	const marker = "ran-in-the-sandbox"
	for _, c := range shellAgents(marker) {
		t.Run(c.name, func(t *testing.T) {
			d := clitest.Start(t)
			model := agenttest.StartModel(t, c.api, agenttest.Script{c.call, agenttest.Say("done")})
			cli, ctx := installedAgent(t, d, c.name, c.new, model)
			res, err := c.run(ctx, cli, d.Workspace)
			if err != nil {
				t.Fatal(err)
			}
			if !res.ModelSaw(marker) || res.ModelSaw(cli.Home) {
				t.Fatalf("the model should see the command's output from the sandbox's fresh home, not %s:\n%s\ndaemon log:\n%s", cli.Home, strings.Join(res.ToolResults(), "\n---\n"), d.Log())
			}
			started := d.Events("kind=exec.started")
			if len(started) != 1 {
				t.Fatalf("exec.started rows: %v, want the one command", started)
			}
		})
	}
}

// TestInstalledAgentFollowsIntoAnotherProject: each real agent, started
// in a project the daemon does not serve, raises one workspace card, and
// once it is allowed its own shell works there, in the sandbox.
func TestInstalledAgentFollowsIntoAnotherProject(t *testing.T) {
	const marker = "ran-in-the-other-project"
	for _, c := range shellAgents(marker) {
		t.Run(c.name, func(t *testing.T) {
			d := clitest.Start(t)
			other := gitProject(t, "other")
			model := agenttest.StartModel(t, c.api, agenttest.Script{c.call, agenttest.Say("done")})
			cli, ctx := installedAgent(t, d, c.name, c.new, model)
			card := make(chan clitest.Approval, 1)
			go func() {
				a := d.WaitApproval(2 * time.Minute)
				d.Decide(a.ID, "allow", "once", "")
				card <- a
			}()
			res, err := c.run(ctx, cli, other)
			if err != nil {
				t.Fatal(err)
			}
			if a := <-card; a.Kind != "workspace" || len(a.Paths) != 1 || a.Paths[0] != other {
				t.Fatalf("card %+v, want a workspace card for %s", a, other)
			}
			if !res.ModelSaw(marker) {
				t.Fatalf("the model should see the command's output:\n%s\ndaemon log:\n%s", strings.Join(res.ToolResults(), "\n---\n"), d.Log())
			}
			if n := len(d.Pending()); n != 0 {
				t.Fatalf("%d more cards after the workspace was allowed", n)
			}
		})
	}
}

// TestCodexDefaultSandboxSaysWhatToSet: in Codex's default sandbox the
// `gatehouse exec` its hook wrote cannot connect anywhere; the model, and
// so the person, reads which two settings let it (the same ones
// TestInstalledAgentOwnShellRunsInSandbox uses), and install says so too.
func TestCodexDefaultSandboxSaysWhatToSet(t *testing.T) {
	d := clitest.Start(t)
	model := agenttest.StartModel(t, agenttest.OpenAI, agenttest.Script{
		agenttest.Call("exec_command", map[string]any{"cmd": "echo hi"}), agenttest.Say("done")})
	cli := agentOutsideTmp(t, "codex", agenttest.NewCodex, model)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	out, errOut, code := clitest.Run(ctx, t, d.Bin, cli.Environ(), "--data", d.Data, "install", "codex")
	if code != 0 || !strings.Contains(out, "network_access = true") {
		t.Fatalf("gatehouse install codex: exit %d, no word on Codex's sandbox\n%s%s", code, out, errOut)
	}
	res, err := cli.RunCodex(ctx, d.Workspace, "say hi")
	if err != nil {
		t.Fatal(err)
	}
	if !res.ModelSaw("allows no network connection") || !res.ModelSaw("network_access = true") {
		t.Fatalf("the model should read what to set:\n%s", strings.Join(res.ToolResults(), "\n---\n"))
	}
}

// agentOutsideTmp prepares an agent CLI with a home outside /tmp, where
// Codex's own sandbox refuses to make its helper links (see NewCodex).
func agentOutsideTmp(t *testing.T, name string, newCLI func(home string, m *agenttest.Model) (*agenttest.CLI, error), m *agenttest.Model) *agenttest.CLI {
	t.Helper()
	base, err := os.MkdirTemp("/var/tmp", "gatehouse-agent-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	return pinnedAgent(t, name+" CLI", newCLI, filepath.Join(base, "home"), m)
}

// installedAgent is agentOutsideTmp wired into d by `gatehouse install`,
// with the context its run gets (four minutes, for a CLI's slow start).
func installedAgent(t *testing.T, d *clitest.Daemon, name string, newCLI func(home string, m *agenttest.Model) (*agenttest.CLI, error), m *agenttest.Model) (*agenttest.CLI, context.Context) {
	t.Helper()
	cli := agentOutsideTmp(t, name, newCLI, m)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	t.Cleanup(cancel)
	if out, errOut, code := clitest.Run(ctx, t, d.Bin, cli.Environ(), "--data", d.Data, "install", name); code != 0 {
		t.Fatalf("gatehouse install %s: exit %d\n%s%s", name, code, out, errOut)
	}
	return cli, ctx
}

// pinnedAgent is the pinned agent CLI called name (newCLI makes it) with
// its home at home, talking to m.
func pinnedAgent(t *testing.T, name string, newCLI func(home string, m *agenttest.Model) (*agenttest.CLI, error), home string, m *agenttest.Model) *agenttest.CLI {
	t.Helper()
	cli, err := newCLI(home, m)
	if err != nil {
		t.Fatalf("the pinned %s is needed for this test: %v", name, err)
	}
	return cli
}

// TestClaudeReadOfAKeyNeverReachesTheModel: the real Claude Code, its own
// Read of a private key allowed by the person, shows its model the file
// with the key's body redacted.
func TestClaudeReadOfAKeyNeverReachesTheModel(t *testing.T) {
	d := clitest.Start(t)
	const body = "MIIEowIBAAKCAQEA9z8y7x6w5v4u3t2s1r0q"
	key := filepath.Join(t.TempDir(), "id_rsa")
	if err := os.WriteFile(key, []byte("-----BEGIN RSA PRIVATE KEY-----\n"+body+"\n-----END RSA PRIVATE KEY-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	model := agenttest.StartModel(t, agenttest.Anthropic, agenttest.Script{
		agenttest.Call("Read", map[string]any{"file_path": key}), agenttest.Say("done"),
	})
	cli, ctx := installedAgent(t, d, "claude", agenttest.NewClaude, model)
	d.AllowNext(2 * time.Minute)
	res, err := cli.RunClaude(ctx, d.Workspace, "show me the key", []string{"Read"})
	if err != nil {
		t.Fatal(err)
	}
	if res.ModelSaw(body) {
		t.Fatalf("the model saw the key's body:\n%s", strings.Join(res.ToolResults(), "\n---\n"))
	}
	if !res.ModelSaw("REDACTED") {
		t.Fatalf("the model saw no redacted copy:\n%s\ndaemon log:\n%s", strings.Join(res.ToolResults(), "\n---\n"), d.Log())
	}
}

// TestClaudeSearchLeavesSecretsOut: the real Claude Code's own Grep runs
// in its own process, where the sandbox hides nothing: a search of the
// project finds its files but none the sandbox hides (a .env, an
// editor's copy of it, a key), whatever glob the agent gave, nor one
// whose content holds a token or a key's body; a search of the .env
// itself, allowed by the person, shows its values redacted.
func TestClaudeSearchLeavesSecretsOut(t *testing.T) {
	d := clitest.Start(t)
	writeFiles(t, d.Workspace, map[string]string{
		".env":              "API_KEY=sk-envsecret-4417aa09\n",
		".env~":             "API_KEY=sk-envsecret-4417aa09\n",
		"config/.env-old":   "OLD_KEY=sk-oldsecret-88c1f2\n",
		"deploy/server.key": "sk-keyfile-secret-5521\n",
		"deploy/.ENV.Prod":  "PROD_KEY=sk-upper-secret-7d2e\n",
		"notes/plan.txt":    "sk-MARKER-visible\n",
		// Secrets inside ordinary files: a token shape, a key's body.
		"config/settings.yml": "token: ghp_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe9Dc8\n",
		"docs/setup notes.md": "key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAAsk-keybody-51c2\n-----END OPENSSH PRIVATE KEY-----\n",
	})
	model := agenttest.StartModel(t, agenttest.Anthropic, agenttest.Script{
		agenttest.Call("Grep", map[string]any{"pattern": "sk-", "output_mode": "content"}),
		agenttest.Call("Grep", map[string]any{"pattern": "ghp_|sk-", "output_mode": "content", "-C": 2}),
		agenttest.Call("Grep", map[string]any{"pattern": "sk-", "output_mode": "content", "glob": ".env*"}),
		agenttest.Call("Grep", map[string]any{"pattern": "sk-", "output_mode": "files_with_matches", "path": "config"}),
		agenttest.Call("Grep", map[string]any{"pattern": "KEY", "output_mode": "content", "path": ".env"}),
		agenttest.Say("done"),
	})
	cli, ctx := installedAgent(t, d, "claude", agenttest.NewClaude, model)
	// The search of .env itself asks, as a read of it does.
	d.AllowNext(2 * time.Minute)
	res, err := cli.RunClaude(ctx, d.Workspace, "search", []string{"Grep"})
	if err != nil {
		t.Fatal(err)
	}
	results := strings.Join(res.ToolResults(), "\n---\n")
	if !res.ModelSaw("sk-MARKER-visible") {
		t.Fatalf("the search found nothing at all:\n%s\ndaemon log:\n%s", results, d.Log())
	}
	for _, secret := range []string{"sk-envsecret-4417aa09", "sk-oldsecret-88c1f2", "sk-keyfile-secret-5521", "sk-upper-secret-7d2e",
		"ghp_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe9Dc8", "sk-keybody-51c2"} {
		if res.ModelSaw(secret) {
			t.Errorf("the model saw %s:\n%s", secret, results)
		}
	}
	if !res.ModelSaw("REDACTED") {
		t.Errorf("the search of .env showed no redacted copy:\n%s", results)
	}
	// The model is told which files a search left out, so a match
	// missing from them is not taken for no match.
	told := false
	for _, q := range res.Requests {
		told = told || bytes.Contains(q.Body, []byte("Gatehouse left these files out of this search")) && bytes.Contains(q.Body, []byte("config/settings.yml"))
	}
	if !told {
		t.Errorf("the model was not told which files the search left out:\n%s", results)
	}
}

// TestGeminiSearchLeavesSecretsOut: the real Gemini CLI's own search runs
// in its process, where nothing is hidden. Its grep_search of a folder
// holding a .env that git does not ignore, or a file whose content holds
// a key, is refused with where to search instead; of one whose .env git
// ignores (its git grep skips it), or of one without any, it runs; and
// its tools that touch nothing (a topic) are not refused as unknown.
func TestGeminiSearchLeavesSecretsOut(t *testing.T) {
	d := clitest.Start(t)
	writeFiles(t, d.Workspace, map[string]string{
		".gitignore":     ".env\n",
		".env":           "API_KEY=sk-envsecret-61c0de\n",
		"app/.env.local": "LOCAL_KEY=sk-localsecret-39fa\n",
		"cfg/.env":       "CFG_KEY=sk-cfgsecret-a81b\n",
		"cfg/app.txt":    "sk-CFG-visible\n",
		"notes/plan.txt": "sk-MARKER-visible\n",
		"docs/key.md":    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAAsk-gemkey-77e1\n-----END OPENSSH PRIVATE KEY-----\n",
	})
	if out, err := exec.Command("git", "-C", d.Workspace, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	model := agenttest.StartModel(t, agenttest.Gemini, agenttest.Script{
		agenttest.Call("update_topic", map[string]any{"title": "secrets", "summary": "look around", "strategic_intent": "find notes"}),
		agenttest.Call("grep_search", map[string]any{"pattern": "sk-"}),
		agenttest.Call("grep_search", map[string]any{"pattern": "sk-", "dir_path": filepath.Join(d.Workspace, "notes")}),
		agenttest.Call("grep_search", map[string]any{"pattern": "sk-", "dir_path": filepath.Join(d.Workspace, "cfg")}),
		agenttest.Call("grep_search", map[string]any{"pattern": "sk-", "dir_path": filepath.Join(d.Workspace, "cfg"), "no_ignore": true}),
		agenttest.Call("grep_search", map[string]any{"pattern": "sk-", "dir_path": filepath.Join(d.Workspace, "docs")}),
		agenttest.Say("done"),
	})
	cli, ctx := installedAgent(t, d, "gemini", agenttest.NewGemini, model)
	res, err := cli.RunGemini(ctx, d.Workspace, "search", "--approval-mode", "yolo")
	if err != nil {
		t.Fatal(err)
	}
	results := strings.Join(res.ToolResults(), "\n---\n")
	for _, secret := range []string{"sk-envsecret-61c0de", "sk-localsecret-39fa", "sk-cfgsecret-a81b", "sk-gemkey-77e1"} {
		if res.ModelSaw(secret) {
			t.Errorf("the model saw %s:\n%s", secret, results)
		}
	}
	for _, want := range []string{"Search with grep or rg through the shell", "sk-MARKER-visible", "sk-CFG-visible", "Current topic"} {
		if !res.ModelSaw(want) {
			t.Errorf("the model never saw %q:\n%s\ndaemon log:\n%s", want, results, d.Log())
		}
	}
	if refused := strings.Count(results, "Search with grep or rg through the shell"); refused != 3 {
		t.Errorf("%d searches refused, want the project's (a .env git does not ignore), cfg's with no_ignore and docs' (a key's body in a note):\n%s", refused, results)
	}
	if !res.ModelSaw("key.md, whose content holds a secret") {
		t.Errorf("the refusal of docs does not say why:\n%s", results)
	}
	if res.ModelSaw("does not know") {
		t.Errorf("a tool was refused as unknown:\n%s", results)
	}
}

// TestEveryOfferedToolIsJudged: each tool the pinned Claude Code, Codex
// and Gemini CLI offer their model, as their first request lists them,
// goes through `gatehouse hook` and is judged: none is refused as a tool
// Gatehouse does not know (a new version's tool fails this test, not a
// person's session).
func TestEveryOfferedToolIsJudged(t *testing.T) {
	bin := clitest.Binary(t)
	for _, c := range shellAgents("x") {
		t.Run(c.name, func(t *testing.T) {
			d := clitest.Start(t)
			model := agenttest.StartModel(t, c.api, agenttest.Script{agenttest.Say("done")})
			cli, ctx := installedAgent(t, d, c.name, c.new, model)
			res, err := c.run(ctx, cli, d.Workspace)
			if err != nil {
				t.Fatal(err)
			}
			offered := map[string]bool{}
			for _, q := range res.Requests {
				for _, name := range q.Offered {
					offered[name] = true
				}
			}
			if len(offered) < 8 {
				t.Fatalf("the %s offered %d tools: %v", c.name, len(offered), offered)
			}
			for _, name := range slices.Sorted(maps.Keys(offered)) {
				// An empty input: a tool that reads or runs something is
				// refused for naming nothing, before any card.
				ev := preToolUse("offered-"+c.name, name, map[string]any{}, d.Workspace)
				if c.name == "gemini" {
					ev, _ = json.Marshal(map[string]any{"session_id": "offered-gemini", "hook_event_name": "BeforeTool", "tool_name": name, "tool_input": map[string]any{}, "cwd": d.Workspace})
				}
				out, stderr, _ := hookRun(t, bin, d.Data, c.name, ev)
				if strings.Contains(out+stderr, "does not know") {
					t.Errorf("%s's tool %s: %s", c.name, name, strings.TrimSpace(stderr))
				}
			}
			t.Logf("%d tools judged: %v", len(offered), slices.Sorted(maps.Keys(offered)))
		})
	}
}

// TestAgentShellRunsWhereItSays: Codex's exec_command names its working
// directory (workdir) and Gemini CLI's run_shell_command its own
// (dir_path); the command runs there, in the sandbox, not in the
// project's root.
func TestAgentShellRunsWhereItSays(t *testing.T) {
	for _, c := range []struct {
		name string
		call func(sub string) agenttest.Step
	}{
		{"codex", func(sub string) agenttest.Step {
			return agenttest.Call("exec_command", map[string]any{"cmd": "echo ran-in:$(pwd)", "workdir": sub})
		}},
		{"gemini", func(string) agenttest.Step {
			return agenttest.Call("run_shell_command", map[string]any{"command": "echo ran-in:$(pwd)", "dir_path": "svc"})
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var a shellAgent
			for _, s := range shellAgents("") {
				if s.name == c.name {
					a = s
				}
			}
			d := clitest.Start(t)
			sub := filepath.Join(d.Workspace, "svc")
			if err := os.Mkdir(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			model := agenttest.StartModel(t, a.api, agenttest.Script{c.call(sub), agenttest.Say("done")})
			cli, ctx := installedAgent(t, d, a.name, a.new, model)
			res, err := a.run(ctx, cli, d.Workspace)
			if err != nil {
				t.Fatal(err)
			}
			if !res.ModelSaw("ran-in:" + sub) {
				t.Fatalf("the command did not run in %s:\n%s", sub, strings.Join(res.ToolResults(), "\n---\n"))
			}
		})
	}
}

// writeFiles writes each file (its path slash-separated below root) with
// its body, readable by its owner alone, making the directories.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// TestClaudeShellKeepsItsDirectory: Claude Code's shell keeps its
// directory from one command to the next; through the hook a `cd` (alone,
// or into a directory the command made) moves the agent's next command as
// it would without Gatehouse, and a `cd` out of the project moves nothing,
// which the model is told (Claude Code says so itself without Gatehouse).
func TestClaudeShellKeepsItsDirectory(t *testing.T) {
	d := clitest.Start(t)
	sub, made := filepath.Join(d.Workspace, "sub"), filepath.Join(d.Workspace, "made")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	model := agenttest.StartModel(t, agenttest.Anthropic, agenttest.Script{
		agenttest.Call("Bash", map[string]any{"command": "cd sub"}),
		agenttest.Call("Bash", map[string]any{"command": "pwd"}),
		agenttest.Call("Bash", map[string]any{"command": "mkdir ../made && cd ../made"}),
		agenttest.Call("Bash", map[string]any{"command": "pwd"}),
		agenttest.Call("Bash", map[string]any{"command": "cd /etc"}),
		agenttest.Call("Bash", map[string]any{"command": "pwd"}),
		agenttest.Say("done"),
	})
	cli, ctx := installedAgent(t, d, "claude", agenttest.NewClaude, model)
	res, err := cli.RunClaude(ctx, d.Workspace, "look around", []string{"Bash"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string // every result in order, as the model's last turn has them
	for _, q := range res.Requests {
		if len(q.ToolResults) > len(got) {
			got = q.ToolResults
		}
	}
	if len(got) != 6 || strings.TrimSpace(got[1]) != sub || strings.TrimSpace(got[3]) != made || strings.TrimSpace(got[5]) != made {
		t.Fatalf("the agent's shell did not move as its commands did (want %s, %s, %s):\n%s", sub, made, made, strings.Join(got, "\n---\n"))
	}
	if !strings.Contains(got[4], `ended in "/etc"`) || !strings.Contains(got[4], "your shell stays where it was") {
		t.Errorf("the model was not told its cd out of the project was not kept:\n%s", got[4])
	}
}

// codexTmpAside runs Codex's own sandbox as Gatehouse needs it
// (workspace-write, network for `gatehouse exec`), for a test whose
// command may still run when Codex exits: Codex ends it before its sandbox
// has taken down the mount targets it made in its writable roots, so /tmp
// is kept out of those and the empty .git and .codex it leaves are in the
// test's project, not in every other test's /tmp.
var codexTmpAside = []string{"-c", `sandbox_mode="workspace-write"`, "-c", "sandbox_workspace_write.network_access=true",
	"-c", "sandbox_workspace_write.exclude_slash_tmp=true", "-c", "sandbox_workspace_write.exclude_tmpdir_env_var=true"}

// TestAgentSeesALongCommandAsItRuns: Codex hands its model what a command
// has printed by the time it yields (yield_time_ms) while the command
// goes on; through the hook that is the output `gatehouse exec` streams,
// so the model sees a long build's or a server's first lines, not an
// empty result.
func TestAgentSeesALongCommandAsItRuns(t *testing.T) {
	d := clitest.Start(t)
	model := agenttest.StartModel(t, agenttest.OpenAI, agenttest.Script{
		agenttest.Call("exec_command", map[string]any{"cmd": "echo early-line; sleep 120; echo late-line", "yield_time_ms": 3000}),
		agenttest.Say("done"),
	})
	cli, ctx := installedAgent(t, d, "codex", agenttest.NewCodex, model)
	res, err := cli.RunCodex(ctx, d.Workspace, "build it", codexTmpAside...)
	if err != nil {
		t.Fatal(err)
	}
	if !res.ModelSaw("early-line") || res.ModelSaw("late-line") {
		t.Fatalf("the model did not see the running command's first line:\n%s", strings.Join(res.ToolResults(), "\n---\n"))
	}
}

// TestCodexTypesIntoACommand: Codex runs a command on a terminal (tty)
// and its model types into it with write_stdin; through the hook the
// command reads what was typed, as it would without Gatehouse.
func TestCodexTypesIntoACommand(t *testing.T) {
	d := clitest.Start(t)
	session := regexp.MustCompile(`session ID (\d+)`)
	model := agenttest.StartModel(t, agenttest.OpenAI, agenttest.Script{
		agenttest.Call("exec_command", map[string]any{"cmd": `echo ready; read -r name; echo "hello-$name"`, "tty": true, "yield_time_ms": 3000}),
		agenttest.CallWith("write_stdin", func(results []string) any {
			id := 0
			if m := session.FindStringSubmatch(results[len(results)-1]); m != nil {
				id, _ = strconv.Atoi(m[1])
			}
			return map[string]any{"session_id": id, "chars": "codex\n", "yield_time_ms": 5000}
		}),
		agenttest.Say("done"),
	})
	cli, ctx := installedAgent(t, d, "codex", agenttest.NewCodex, model)
	res, err := cli.RunCodex(ctx, d.Workspace, "greet", codexTmpAside...)
	if err != nil {
		t.Fatal(err)
	}
	if !res.ModelSaw("ready") || !res.ModelSaw("hello-codex") {
		t.Fatalf("the command did not read what the model typed:\n%s", strings.Join(res.ToolResults(), "\n---\n"))
	}
	if len(d.Events("kind=exec.finished")) != 1 {
		t.Errorf("the command did not run once in Gatehouse's sandbox")
	}
}

// TestCodexViewImageIsARead: Codex's view_image hands the model a file
// from the disk; through the hook it is judged as a read, so an image
// outside the project (a scan of a passport in the person's home) asks
// first, and once denied never reaches the model.
func TestCodexViewImageIsARead(t *testing.T) {
	d := clitest.Start(t)
	img := filepath.Join(t.TempDir(), "passport.png")
	var png bytes.Buffer
	pic := image.NewRGBA(image.Rect(0, 0, 4, 4))
	pic.Set(1, 1, color.RGBA{R: 200, A: 255})
	if err := pngenc.Encode(&png, pic); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(img, png.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	model := agenttest.StartModel(t, agenttest.OpenAI, agenttest.Script{
		agenttest.Call("view_image", map[string]any{"path": img}),
		agenttest.Say("done"),
	})
	cli, ctx := installedAgent(t, d, "codex", agenttest.NewCodex, model)
	card := make(chan clitest.Approval, 1)
	go func() {
		a := d.WaitApproval(2 * time.Minute)
		d.Decide(a.ID, "deny", "once", "not my photos")
		card <- a
	}()
	res, err := cli.RunCodex(ctx, d.Workspace, "look at it", "-c", `sandbox_mode="workspace-write"`, "-c", "sandbox_workspace_write.network_access=true")
	if err != nil {
		t.Fatal(err)
	}
	var a clitest.Approval
	select {
	case a = <-card:
	case <-time.After(time.Minute):
		t.Fatalf("no card for the image outside the project:\n%s", strings.Join(res.ToolResults(), "\n---\n"))
	}
	if !slices.Contains(a.Paths, img) {
		t.Errorf("the card does not name the image: %+v", a)
	}
	for _, q := range res.Requests {
		if bytes.Contains(q.Body, []byte("data:image/png;base64,")) {
			t.Fatal("the denied image reached the model")
		}
	}
	if !res.ModelSaw("not my photos") {
		t.Errorf("the model was not told why:\n%s", strings.Join(res.ToolResults(), "\n---\n"))
	}
}
