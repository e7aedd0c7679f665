//go:build integration

package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/agenttest"
	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// confinedDaemon is a daemon whose config maps the made-up model domain
// to the scripted model on this machine and names it agent's model API.
func confinedDaemon(t *testing.T, agent string, env ...string) *clitest.Daemon {
	t.Helper()
	return confinedDaemonOn(t, "auto", agent, env...)
}

// confinedDaemonOn is confinedDaemon with its runs confined by backend.
func confinedDaemonOn(t *testing.T, backend, agent string, env ...string) *clitest.Daemon {
	t.Helper()
	return confinedDaemonWith(t, "", backend, agent, env...)
}

// confinedDaemonWith is confinedDaemonOn with top-level settings first.
func confinedDaemonWith(t *testing.T, top, backend, agent string, env ...string) *clitest.Daemon {
	t.Helper()
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	clitest.WriteConfig(t, ws, "config.toml", top+backendConfig(t, backend)+fmt.Sprintf(`
[network]
test_only_hosts = { "model.example.test" = "127.0.0.1" }

[agents.%s]
domains = ["model.example.test"]
env = [%s]
`, agent, quoteAll(env)))
	return clitest.StartWith(t, filepath.Join(base, "data"), ws)
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// confine makes cli start under `gatehouse run --profile NAME`, talking
// to its model by the made-up domain, over TLS through the run's proxy,
// trusting the model's certificate caPEM (Node's and Bun's
// NODE_EXTRA_CA_CERTS, Codex's CODEX_CA_CERTIFICATE).
func confine(t *testing.T, d *clitest.Daemon, cli *agenttest.CLI, profile, baseVar string, caPEM []byte) {
	t.Helper()
	u, err := url.Parse(cli.Model.URL())
	if err != nil {
		t.Fatal(err)
	}
	ca := filepath.Join(d.Workspace, "model-ca.pem")
	if err := os.WriteFile(ca, caPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	cli.ModelBase = "https://model.example.test:" + u.Port()
	cli.Env = append(cli.Env, "NODE_EXTRA_CA_CERTS="+ca, "CODEX_CA_CERTIFICATE="+ca)
	if baseVar != "" {
		cli.Env = append(cli.Env, baseVar+"="+cli.ModelBase)
	}
	cli.Env = append(cli.Env, "XDG_CONFIG_HOME="+filepath.Dir(clitest.ConfigDir(d.Workspace)))
	cli.Prefix = []string{d.Bin, "--data", d.Data, "run", "--workspace", d.Workspace, "--profile", profile, "--"}
}

// agentHome is an agent's home outside /tmp (see agentOutsideTmp), made
// before the agent so a test can plant a canary in it.
func agentHome(t *testing.T) string {
	t.Helper()
	base, err := os.MkdirTemp("/var/tmp", "gatehouse-agent-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	home := filepath.Join(base, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	return home
}

// installedAt is installedAgent with the agent's home at home.
func installedAt(t *testing.T, d *clitest.Daemon, name string, newCLI func(home string, m *agenttest.Model) (*agenttest.CLI, error), home string, m *agenttest.Model) (*agenttest.CLI, context.Context) {
	t.Helper()
	cli := pinnedAgent(t, name+" CLI", newCLI, home, m)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	t.Cleanup(cancel)
	if out, errOut, code := clitest.Run(ctx, t, d.Bin, cli.Environ(), "--data", d.Data, "install", name); code != 0 {
		t.Fatalf("gatehouse install %s: exit %d\n%s%s", name, code, out, errOut)
	}
	return cli, ctx
}

// TestConfinedClaude: the real Claude Code under `gatehouse run`: its model
// traffic reaches the scripted model through the run's proxy; a Gatehouse
// MCP call and its own Bash (through its hooks, in a sandbox of its own)
// work; its own Read of a canary in the real home finds nothing; every
// connection is audited with the process that made it. On each backend.
func TestConfinedClaude(t *testing.T) {
	for _, backend := range runBackends {
		t.Run(backend, func(t *testing.T) { confinedClaude(t, backend) })
	}
}

func confinedClaude(t *testing.T, backend string) {
	d := confinedDaemonOn(t, backend, "claude")
	home := agentHome(t)
	canary := filepath.Join(home, "notes-canary.txt")
	if err := os.WriteFile(canary, []byte("CANARY-9931\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	model, caPEM := agenttest.StartModelTLS(t, agenttest.Anthropic, agenttest.Script{
		agenttest.Call("mcp__gatehouse__run_command", map[string]any{"argv": []string{"echo", "MCP-MARK-1"}}),
		agenttest.Call("Bash", map[string]any{"command": "echo BASH-MARK-2", "description": "say it"}),
		agenttest.Call("Read", map[string]any{"file_path": canary}),
		agenttest.Say("done"),
	}, "model.example.test")
	cli, ctx := installedAt(t, d, "claude", agenttest.NewClaude, home, model)
	confine(t, d, cli, "claude", "ANTHROPIC_BASE_URL", caPEM)
	// The Read of a file outside the project asks (its hook); the person
	// allows it, and the file is still not there for the confined agent.
	d.AllowNext(2 * time.Minute)
	// --add-dir: Claude Code's own rules would refuse a Read outside the
	// project before trying; here the file must be missing.
	res, err := cli.RunClaude(ctx, d.Workspace, "run the checks", []string{"mcp__gatehouse__run_command", "Bash", "Read"}, "--add-dir", home)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", res)
	if len(res.Requests) == 0 {
		t.Fatalf("the confined Claude Code never reached its model:\n%s\ndaemon log:\n%s", res, d.Log())
	}
	for _, want := range []string{"MCP-MARK-1", "BASH-MARK-2"} {
		if !res.ModelSaw(want) {
			t.Errorf("the model never saw %s:\n%s\ndaemon log:\n%s", want, strings.Join(res.ToolResults(), "\n---\n"), d.Log())
		}
	}
	if res.ModelSaw("CANARY-9931") {
		t.Errorf("the confined agent's own Read returned the canary from the real home")
	}
	bashRan := false
	for _, e := range d.Events("kind=exec.started") {
		p, _ := e["payload"].(map[string]any)
		bashRan = bashRan || fmt.Sprint(p["argv"]) == "[echo BASH-MARK-2]"
	}
	if !bashRan {
		t.Errorf("its Bash did not run through Gatehouse's sandbox: %v", d.Events("kind=exec.started"))
	}
	if asked := d.Events("kind=approval.requested"); len(asked) != 1 {
		t.Errorf("want the Read's card alone, got %v", asked)
	}
	conns := d.Events("kind=network.connection")
	if len(conns) == 0 {
		t.Fatalf("no connection audited")
	}
	for _, c := range conns {
		p, _ := c["payload"].(map[string]any)
		if proc, _ := p["process"].(string); !strings.Contains(proc, "claude") {
			t.Errorf("connection %v not attributed to Claude Code's process", p)
		}
	}
}

// TestConfinedCodexAndGemini: the real Codex CLI and Gemini CLI under
// `gatehouse run`: each reaches its model through the run's proxy, and a
// Gatehouse MCP call and its own shell (through its hooks, in a sandbox
// of its own) both work from inside, on bubblewrap and in a container;
// Gemini on Landlock too.
func TestConfinedCodexAndGemini(t *testing.T) {
	cases := []struct {
		name, baseVar string
		env           []string
		api           agenttest.API
		newCLI        func(home string, m *agenttest.Model) (*agenttest.CLI, error)
		mcp, shell    agenttest.Step
		run           func(ctx context.Context, c *agenttest.CLI, dir string) (*agenttest.Result, error)
		// backends the agent is shown working on. Codex's own shell
		// sandbox keeps a directory at /tmp/codex-daemon-UID, shared with
		// Codex outside the run, which Landlock mode refuses ("error
		// building bubblewrap command: Permission denied"), so its shell
		// is shown on bubblewrap and the container only.
		backends []string
		// runInContainer, if set, runs it in a container instead of run.
		runInContainer func(ctx context.Context, c *agenttest.CLI, dir string) (*agenttest.Result, error)
	}{
		{"codex", "", []string{"AGENTTEST_KEY"}, agenttest.OpenAI, agenttest.NewCodex,
			agenttest.Call("mcp__gatehouse__run_command", map[string]any{"argv": []string{"echo", "MCP-MARK-1"}}),
			agenttest.Call("exec_command", map[string]any{"cmd": "echo SHELL-MARK-2"}),
			func(ctx context.Context, c *agenttest.CLI, dir string) (*agenttest.Result, error) {
				return c.RunCodex(ctx, dir, "run the checks", "-c", `sandbox_mode="workspace-write"`, "-c", "sandbox_workspace_write.network_access=true")
			}, []string{"bwrap", "container"},
			// Codex's own sandbox (bubblewrap) cannot start in a container
			// without capabilities (mapping root into a user namespace needs
			// CAP_SETFCAP); the container confines its commands instead.
			func(ctx context.Context, c *agenttest.CLI, dir string) (*agenttest.Result, error) {
				return c.RunCodex(ctx, dir, "run the checks", "-c", `sandbox_mode="danger-full-access"`)
			}},
		{"gemini", "GOOGLE_GEMINI_BASE_URL", nil, agenttest.Gemini, agenttest.NewGemini,
			agenttest.Call("mcp_gatehouse_run_command", map[string]any{"argv": []string{"echo", "MCP-MARK-1"}}),
			agenttest.Call("run_shell_command", map[string]any{"command": "echo SHELL-MARK-2"}),
			func(ctx context.Context, c *agenttest.CLI, dir string) (*agenttest.Result, error) {
				return c.RunGemini(ctx, dir, "run the checks", "--approval-mode", "yolo")
			}, runBackends, nil},
	}
	for _, c := range cases {
		for _, backend := range c.backends {
			t.Run(c.name+"/"+backend, func(t *testing.T) {
				d := confinedDaemonOn(t, backend, c.name, c.env...)
				model, caPEM := agenttest.StartModelTLS(t, c.api, agenttest.Script{c.mcp, c.shell, agenttest.Say("done")}, "model.example.test")
				cli, ctx := installedAt(t, d, c.name, c.newCLI, agentHome(t), model)
				confine(t, d, cli, c.name, c.baseVar, caPEM)
				// What the agent reaches for besides its model (Codex's update
				// and plugin checks) raises network cards; the person says no.
				defer denyNetworkCards(ctx, d)()
				run := c.run
				if backend == "container" && c.runInContainer != nil {
					run = c.runInContainer
				}
				res, err := run(ctx, cli, d.Workspace)
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Requests) == 0 {
					t.Fatalf("the confined %s never reached its model:\n%s\ndaemon log:\n%s", c.name, res, d.Log())
				}
				for _, want := range []string{"MCP-MARK-1", "SHELL-MARK-2"} {
					if !res.ModelSaw(want) {
						t.Errorf("the model never saw %s:\n%s\n%s\ndaemon log:\n%s", want, strings.Join(res.ToolResults(), "\n---\n"), res, d.Log())
					}
				}
				if started := d.Events("kind=run.started"); len(started) != 1 {
					t.Errorf("run.started rows: %v", started)
				}
				// The project had neither: Codex's own sandbox binds both
				// read-only, so the run made them empty, and said so.
				if c.name == "codex" {
					for _, n := range []string{".git", ".codex"} {
						if des, err := os.ReadDir(filepath.Join(d.Workspace, n)); err != nil || len(des) != 0 {
							t.Errorf("%s in the project, want an empty directory: %v %v", n, des, err)
						}
					}
					if !strings.Contains(res.Stderr, "gatehouse: made an empty .git and an empty .codex in ") {
						t.Errorf("the run never said what it made:\n%s", res)
					}
				}
			})
		}
	}
}

// denyNetworkCards denies every network card until the returned stop is
// called (before the test ends: the daemon must still answer).
func denyNetworkCards(ctx context.Context, d *clitest.Daemon) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			for _, a := range d.Pending() {
				if a.Kind == "network" {
					d.Decide(a.ID, "deny", "once", "")
				}
			}
			select {
			case <-ctx.Done():
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
	return func() { cancel(); <-done }
}

// TestConfinedClaudeServersAndRepoSettings: a repository that switches
// Claude Code's hooks off changes nothing about the boundary under
// `gatehouse run`: its own Bash, unhooked, still cannot read a canary in
// the real home or write outside the project; and a stdio MCP server it
// starts is confined just the same (no canary, no network, no write
// outside). On each backend.
func TestConfinedClaudeServersAndRepoSettings(t *testing.T) {
	for _, backend := range runBackends {
		t.Run(backend, func(t *testing.T) { confinedClaudeServersAndRepoSettings(t, backend) })
	}
}

func confinedClaudeServersAndRepoSettings(t *testing.T, backend string) {
	d := confinedDaemonOn(t, backend, "claude")
	home := agentHome(t)
	canary := filepath.Join(home, "notes-canary.txt")
	if err := os.WriteFile(canary, []byte("CANARY-4417\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("HOST-LISTENER")) }))
	if err := os.MkdirAll(filepath.Join(d.Workspace, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d.Workspace, ".claude", "settings.json"), []byte(`{"disableAllHooks": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// The server probes, writes what it found into the project (a
	// directory of it: Landlock cannot let a file be made in the root
	// beside its read-only ones), then waits as a server would.
	if err := os.Mkdir(filepath.Join(d.Workspace, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	probe := fmt.Sprintf(`{ cat %q; echo x > %q/by-server; curl -s -m 3 --noproxy '*' http://%s/; echo SERVER-PROBED; } > out/server.out 2>&1; exec sleep 600`,
		canary, outside, ln.Addr())
	mcpConfig := filepath.Join(d.Workspace, "mcp.json")
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"probe": map[string]any{"type": "stdio", "command": "sh", "args": []string{"-c", probe}}}})
	if err := os.WriteFile(mcpConfig, cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	model, caPEM := agenttest.StartModelTLS(t, agenttest.Anthropic, agenttest.Script{
		agenttest.Call("Bash", map[string]any{"command": fmt.Sprintf("cat %q; echo x > %q/by-bash; echo BASH-RAN", canary, outside), "description": "probe"}),
		agenttest.Say("done"),
	}, "model.example.test")
	cli, ctx := installedAt(t, d, "claude", agenttest.NewClaude, home, model)
	confine(t, d, cli, "claude", "ANTHROPIC_BASE_URL", caPEM)
	res, err := cli.RunClaude(ctx, d.Workspace, "probe", []string{"Bash"}, "--mcp-config", mcpConfig)
	if err != nil {
		t.Fatal(err)
	}
	if !res.ModelSaw("BASH-RAN") {
		t.Fatalf("its Bash did not run:\n%s\n%s\ndaemon log:\n%s", strings.Join(res.ToolResults(), "\n---\n"), res, d.Log())
	}
	if res.ModelSaw("CANARY-4417") {
		t.Error("the unhooked Bash read the canary in the real home")
	}
	if ran := d.Events("kind=exec.started"); len(ran) != 0 {
		t.Errorf("the repository switched hooks off, yet the Bash went through Gatehouse: %v", ran)
	}
	server, err := os.ReadFile(filepath.Join(d.Workspace, "out", "server.out"))
	if err != nil || !strings.Contains(string(server), "SERVER-PROBED") {
		t.Fatalf("the MCP server's probe did not run: %v %q", err, server)
	}
	for _, leak := range []string{"CANARY-4417", "HOST-LISTENER"} {
		if strings.Contains(string(server), leak) {
			t.Errorf("the MCP server reached %s:\n%s", leak, server)
		}
	}
	for _, f := range []string{"by-bash", "by-server"} {
		if _, err := os.Stat(filepath.Join(outside, f)); err == nil {
			t.Errorf("%s was written outside the project", f)
		}
	}
}

// TestConfinedClaudeReadOfAKeyIsRedacted: under `gatehouse run`, Claude
// Code's own Read of a project file holding a private key is answered
// with the redacted copy, which the run is shown; the key's body never
// reaches the model.
func TestConfinedClaudeReadOfAKeyIsRedacted(t *testing.T) {
	d := confinedDaemon(t, "claude")
	const body = "MIIEowIBAAKCAQEA7y6x5w4v3u2t1s0r9q8p"
	notes := filepath.Join(d.Workspace, "deploy-notes.txt")
	if err := os.WriteFile(notes, []byte("ssh key:\n-----BEGIN RSA PRIVATE KEY-----\n"+body+"\n-----END RSA PRIVATE KEY-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	model, caPEM := agenttest.StartModelTLS(t, agenttest.Anthropic, agenttest.Script{
		agenttest.Call("Read", map[string]any{"file_path": notes}), agenttest.Say("done"),
	}, "model.example.test")
	cli, ctx := installedAt(t, d, "claude", agenttest.NewClaude, agentHome(t), model)
	confine(t, d, cli, "claude", "ANTHROPIC_BASE_URL", caPEM)
	res, err := cli.RunClaude(ctx, d.Workspace, "show me the notes", []string{"Read"})
	if err != nil {
		t.Fatal(err)
	}
	if res.ModelSaw(body) {
		t.Fatalf("the model saw the key's body:\n%s", strings.Join(res.ToolResults(), "\n---\n"))
	}
	if !res.ModelSaw("REDACTED") || !res.ModelSaw("ssh key:") {
		t.Fatalf("the model saw no redacted copy:\n%s\n%s\ndaemon log:\n%s", strings.Join(res.ToolResults(), "\n---\n"), res, d.Log())
	}
}

// TestConfinedClaudeInEveryMode: the confined agent's own model API
// needs no card, so it is reached whatever the mode: in unattended mode,
// where every card is a denial, and in plan mode, which opens the network
// to no command; a command's domain stays denied there.
func TestConfinedClaudeInEveryMode(t *testing.T) {
	for _, mode := range []string{"unattended", "plan"} {
		t.Run(mode, func(t *testing.T) {
			d := confinedDaemonWith(t, "mode = \""+mode+"\"\n", "auto", "claude")
			model, caPEM := agenttest.StartModelTLS(t, agenttest.Anthropic, agenttest.Script{agenttest.Say("answered in " + mode + " mode")}, "model.example.test")
			cli, ctx := installedAt(t, d, "claude", agenttest.NewClaude, agentHome(t), model)
			confine(t, d, cli, "claude", "ANTHROPIC_BASE_URL", caPEM)
			res, err := cli.RunClaude(ctx, d.Workspace, "say hello", nil)
			if err != nil {
				t.Fatalf("%v\ndaemon log:\n%s", err, d.Log())
			}
			if len(res.Requests) == 0 || !strings.Contains(res.Stdout, "answered in "+mode+" mode") {
				t.Fatalf("the agent did not reach its model:\n%s\ndaemon log:\n%s", res, d.Log())
			}
		})
	}
}

// TestLandlockClaudeRootWrite: the real Claude
// Code confined whole on Landlock writes a new file at the project's
// root, which Landlock cannot allow (the root lacks names that steer the
// next session): its hook refuses the write with Gatehouse's reason, so
// the model reads what works instead of a bare EACCES; a new file in a
// subdirectory is written.
func TestLandlockClaudeRootWrite(t *testing.T) {
	d := confinedDaemonOn(t, "landlock", "claude")
	if err := os.Mkdir(filepath.Join(d.Workspace, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	root, sub := filepath.Join(d.Workspace, "NOTES.md"), filepath.Join(d.Workspace, "docs", "notes.md")
	model, caPEM := agenttest.StartModelTLS(t, agenttest.Anthropic, agenttest.Script{
		agenttest.Call("Write", map[string]any{"file_path": root, "content": "at the root\n"}),
		agenttest.Call("Write", map[string]any{"file_path": sub, "content": "below it\n"}),
		agenttest.Say("done"),
	}, "model.example.test")
	cli, ctx := installedAt(t, d, "claude", agenttest.NewClaude, agentHome(t), model)
	confine(t, d, cli, "claude", "ANTHROPIC_BASE_URL", caPEM)
	res, err := cli.RunClaude(ctx, d.Workspace, "write the notes", []string{"Write"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.ModelSaw("Landlock sandbox refused making " + root) {
		t.Errorf("the model was not told why the root write failed:\n%s\n%s\ndaemon log:\n%s", strings.Join(res.ToolResults(), "\n---\n"), res, d.Log())
	}
	if _, err := os.Stat(root); err == nil {
		t.Error("a new file was made at the project's root on Landlock")
	}
	if out, _, _ := d.CLI(t.Context(), "log", "--json", "--kind", "tool.refused"); !strings.Contains(out, "Landlock sandbox refused making") {
		t.Errorf("the refused write is not in the audit with its reason:\n%s", out)
	}
	if b, err := os.ReadFile(sub); err != nil || string(b) != "below it\n" {
		t.Errorf("the write below the root: %q, %v\n%s", b, err, strings.Join(res.ToolResults(), "\n---\n"))
	}
}

// TestLandlockClaudeRootEdit: the real Claude Code confined whole on
// Landlock rewrites and edits files that exist at the project's root,
// which Landlock leaves writable one by one.
func TestLandlockClaudeRootEdit(t *testing.T) {
	d := confinedDaemonOn(t, "landlock", "claude")
	readme, notes := filepath.Join(d.Workspace, "README.md"), filepath.Join(d.Workspace, "NOTES.md")
	for _, f := range []string{readme, notes} {
		if err := os.WriteFile(f, []byte("old line\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	model, caPEM := agenttest.StartModelTLS(t, agenttest.Anthropic, agenttest.Script{
		agenttest.Call("Read", map[string]any{"file_path": readme}),
		agenttest.Call("Write", map[string]any{"file_path": readme, "content": "new readme\n"}),
		agenttest.Call("Read", map[string]any{"file_path": notes}),
		agenttest.Call("Edit", map[string]any{"file_path": notes, "old_string": "old line", "new_string": "edited line"}),
		agenttest.Say("done"),
	}, "model.example.test")
	cli, ctx := installedAt(t, d, "claude", agenttest.NewClaude, agentHome(t), model)
	confine(t, d, cli, "claude", "ANTHROPIC_BASE_URL", caPEM)
	res, err := cli.RunClaude(ctx, d.Workspace, "update the files", []string{"Read", "Write", "Edit"})
	if err != nil {
		t.Fatal(err)
	}
	for f, want := range map[string]string{readme: "new readme\n", notes: "edited line\n"} {
		if b, err := os.ReadFile(f); err != nil || string(b) != want {
			t.Errorf("%s: %q, %v; want %q\n%s\n%s", f, b, err, want, strings.Join(res.ToolResults(), "\n---\n"), res)
		}
	}
}
