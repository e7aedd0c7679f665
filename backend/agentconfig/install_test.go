package agentconfig

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixture is one starting state of an agent's files.
type fixture struct {
	name string
	// files by path relative to the test's root ("home/…", "etc/…").
	files map[string]string
}

func testEnv(t *testing.T) (Env, Installer, Wiring, string) {
	t.Helper()
	root := t.TempDir()
	env := Env{Home: filepath.Join(root, "home"), Root: root, Getenv: func(string) string { return "" }}
	if err := os.MkdirAll(env.Home, 0o700); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(root, "data")
	return env, Installer{Env: env, DataDir: data}, Wiring{Binary: "/opt/gate house/bin/gatehouse", DataDir: data}, root
}

var personClaudeSettings = `{
    "model": "opus",
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "/home/me/bin/audit.sh"}]
            }
        ]
    },
    "permissions": {"allow": ["Bash(ls:*)"]}
}
`

var personGemini = `// my Gemini settings
{
  "theme": "Dracula", /* dark */
  "mcpServers": {
    "github": {"command": "gh-mcp"}
  },
  "hooks": {
    "BeforeTool": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "lint.sh"}]}]
  }
}
`

var personCodex = `# my Codex config
model = "o3"   # the good one
approval_policy = "on-request"

[mcp_servers.github]
command = "gh-mcp"   # GitHub's server
args = ["--stdio"]

# projects I trust
[projects."/home/me/src"]
trust_level = "trusted"
`

var personCodexHooks = `{
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "/home/me/guard.sh"}]}
    ]
  }
}
`

// byScope is the file an install in scope writes: user or system.
func byScope(scope Scope, user, system string) string {
	if scope == System {
		return system
	}
	return user
}

func fixturesFor(a Agent, scope Scope) []fixture {
	var out []fixture
	out = append(out, fixture{name: "absent"})
	switch a {
	case Claude:
		settings := byScope(scope, "home/.claude/settings.json", "etc/claude-code/managed-settings.json")
		out = append(out,
			fixture{"empty object", map[string]string{"home/.claude.json": "{}", settings: "{}"}},
			fixture{"empty file", map[string]string{"home/.claude.json": "", settings: ""}},
			fixture{"person's entries", map[string]string{
				"home/.claude.json": `{"numStartups": 3, "mcpServers": {"github": {"type": "stdio", "command": "gh-mcp"}}}`,
				settings:            personClaudeSettings,
			}})
	case Gemini:
		hooks := byScope(scope, "home/.gemini/settings.json", "etc/gemini-cli/settings.json")
		out = append(out,
			fixture{"empty object", map[string]string{"home/.gemini/settings.json": "{}\n", hooks: "{}\n"}},
			fixture{"person's entries with comments", map[string]string{"home/.gemini/settings.json": personGemini, hooks: personGemini}})
	case Codex:
		f := map[string]string{"home/.codex/config.toml": personCodex}
		if scope == User {
			f["home/.codex/hooks.json"] = personCodexHooks
		} else {
			f["etc/codex/requirements.toml"] = "# fleet rules\nallowed_approval_policies = [\"on-request\"]\n"
		}
		out = append(out,
			fixture{"empty files", map[string]string{"home/.codex/config.toml": "", "home/.codex/hooks.json": "{}"}},
			fixture{"person's entries and comments", f})
	case Cursor:
		hooks := byScope(scope, "home/.cursor/hooks.json", "etc/cursor/hooks.json")
		out = append(out,
			fixture{"empty object", map[string]string{"home/.cursor/mcp.json": "{}", hooks: "{}"}},
			fixture{"person's entries", map[string]string{
				"home/.cursor/mcp.json": `{"mcpServers":{"linear":{"url":"https://mcp.example.test/sse"}}}`,
				hooks:                   `{"version":1,"hooks":{"beforeShellExecution":[{"command":"./mine.sh"}]}}`,
			}})
	}
	return out
}

// tree is every file under root (but the data dir), as path → content.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "data" && d.IsDir() {
			return filepath.SkipDir
		}
		if d.IsDir() {
			out[rel+"/"] = ""
			return nil
		}
		b, _ := os.ReadFile(p)
		st, _ := os.Stat(p)
		out[rel] = st.Mode().Perm().String() + "\n" + string(b)
		return nil
	})
	return out
}

func TestInstallUninstallRestoresBytes(t *testing.T) {
	for _, a := range Agents {
		for _, scope := range []Scope{User, System} {
			for _, fx := range fixturesFor(a, scope) {
				t.Run(string(a)+"/"+string(scope)+"/"+fx.name, func(t *testing.T) {
					_, in, w, root := testEnv(t)
					for rel, content := range fx.files {
						p := filepath.Join(root, rel)
						if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
							t.Fatal(err)
						}
						if err := os.WriteFile(p, []byte(content), 0o640); err != nil {
							t.Fatal(err)
						}
					}
					before := tree(t, root)

					res, err := in.Install(a, scope, w)
					if err != nil {
						t.Fatalf("install: %v", err)
					}
					if !res.Changed() {
						t.Fatalf("install changed nothing: %+v", res)
					}
					if st := in.Status(a, scope); !st.Wired || !st.Recorded {
						t.Fatalf("after install, status %+v", st)
					}
					checkValid(t, in, a, scope)
					if fx.name != "absent" {
						checkKept(t, root, fx)
					}
					installed := tree(t, root)

					again, err := in.Install(a, scope, w)
					if err != nil {
						t.Fatalf("second install: %v", err)
					}
					if again.Changed() {
						t.Fatalf("second install changed %+v", again)
					}
					if got := tree(t, root); !equalTrees(got, installed) {
						t.Fatalf("second install touched files:\n%s", diffTrees(installed, got))
					}

					if _, err := in.Uninstall(a, scope); err != nil {
						t.Fatalf("uninstall: %v", err)
					}
					if got := tree(t, root); !equalTrees(got, before) {
						t.Fatalf("uninstall did not restore the files:\n%s", diffTrees(before, got))
					}
					if st := in.Status(a, scope); st.Wired || st.Recorded {
						t.Fatalf("after uninstall, status %+v", st)
					}
					if _, err := in.Uninstall(a, scope); !errors.Is(err, ErrNotInstalled) {
						t.Fatalf("second uninstall: %v, want ErrNotInstalled", err)
					}
					if got := tree(t, root); !equalTrees(got, before) {
						t.Fatalf("second uninstall changed files:\n%s", diffTrees(before, got))
					}
				})
			}
		}
	}
}

// checkValid parses every target after install.
func checkValid(t *testing.T, in Installer, a Agent, scope Scope) {
	t.Helper()
	for _, tg := range definitionOf(a).targets(in.Env, scope) {
		b, err := os.ReadFile(tg.Path)
		if err != nil {
			t.Fatalf("%s: %v", tg.Path, err)
		}
		if err := validate(tg, b); err != nil {
			t.Fatalf("install left %s invalid: %v\n%s", tg.Path, err, b)
		}
	}
}

// checkKept asserts the person's own entries are still in their files.
func checkKept(t *testing.T, root string, fx fixture) {
	t.Helper()
	for rel, content := range fx.files {
		b, _ := os.ReadFile(filepath.Join(root, rel))
		for _, want := range []string{"gh-mcp", "audit.sh", "Dracula", "# the good one", "# projects I trust", "guard.sh", "mine.sh", "lint.sh", "# fleet rules"} {
			if strings.Contains(content, want) && !strings.Contains(string(b), want) {
				t.Errorf("%s lost %q:\n%s", rel, want, b)
			}
		}
	}
}

func equalTrees(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func diffTrees(want, got map[string]string) string {
	var s strings.Builder
	for k, v := range want {
		if g, ok := got[k]; !ok {
			s.WriteString("missing " + k + "\n")
		} else if g != v {
			s.WriteString("changed " + k + ":\n--- want\n" + v + "\n--- got\n" + g + "\n")
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			s.WriteString("extra " + k + ": " + got[k] + "\n")
		}
	}
	return s.String()
}

func TestUninstallAfterEditRemovesOnlyGatehouse(t *testing.T) {
	cases := []struct {
		a    Agent
		file string
		edit func(string) string
		keep string
	}{
		{Claude, "home/.claude/settings.json", func(s string) string { return strings.Replace(s, "{", "{\n  \"theme\": \"dark\",", 1) }, `"theme": "dark"`},
		{Claude, "home/.claude.json", func(s string) string { return strings.Replace(s, "{", "{\n  \"numStartups\": 9,", 1) }, `"numStartups": 9`},
		{Gemini, "home/.gemini/settings.json", func(s string) string { return "// mine\n" + s }, "// mine"},
		{Codex, "home/.codex/config.toml", func(s string) string { return "model = \"o3\" # mine\n" + s }, "# mine"},
		{Codex, "home/.codex/hooks.json", func(s string) string { return strings.Replace(s, "{", "{\n  \"note\": 1,", 1) }, `"note": 1`},
		{Cursor, "home/.cursor/hooks.json", func(s string) string { return strings.Replace(s, "{", "{\n  \"note\": 1,", 1) }, `"note": 1`},
	}
	for _, c := range cases {
		t.Run(string(c.a)+"/"+filepath.Base(c.file), func(t *testing.T) {
			_, in, w, root := testEnv(t)
			if _, err := in.Install(c.a, User, w); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(root, c.file)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(c.edit(string(b))), 0o600); err != nil {
				t.Fatal(err)
			}
			res, err := in.Uninstall(c.a, User)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, ch := range res.Changes {
				if ch.Path == p {
					found = ch.Outcome == Stripped
				}
			}
			if !found {
				t.Fatalf("want %s stripped, got %+v", p, res.Changes)
			}
			got, _ := os.ReadFile(p)
			if !strings.Contains(string(got), c.keep) {
				t.Fatalf("the person's edit %q is gone:\n%s", c.keep, got)
			}
			if strings.Contains(string(got), "gatehouse") {
				t.Fatalf("Gatehouse's entries remain:\n%s", got)
			}
			if err := validate(target{Path: p, Format: formatOf(p)}, got); err != nil {
				t.Fatalf("uninstall left it invalid: %v\n%s", err, got)
			}
		})
	}
}

func formatOf(p string) format {
	switch {
	case strings.HasSuffix(p, ".toml"):
		return formatTOML
	case strings.Contains(p, ".gemini"):
		return formatJSONC
	}
	return formatJSON
}

func TestInvalidConfigRefused(t *testing.T) {
	cases := []struct {
		a        Agent
		file     string
		content  string
		wantLine string
	}{
		{Claude, "home/.claude/settings.json", "{\n  \"hooks\": {\n    \"PreToolUse\": [,]\n  }\n}\n", "line 3"},
		{Claude, "home/.claude.json", "[1, 2]", "line 1"},
		{Gemini, "home/.gemini/settings.json", "{\n  // fine\n  \"a\": 1,\n  \"b\": \n}\n", "line 5"},
		{Codex, "home/.codex/config.toml", "model = \"o3\"\n[mcp_servers\ncommand = 1\n", "line 2"},
		{Codex, "home/.codex/hooks.json", "{\"hooks\": ", "line 1"},
		{Cursor, "home/.cursor/mcp.json", "{\"mcpServers\": {}}}", "line 1"},
	}
	for _, c := range cases {
		t.Run(string(c.a)+"/"+filepath.Base(c.file), func(t *testing.T) {
			_, in, w, root := testEnv(t)
			p := filepath.Join(root, c.file)
			_ = os.MkdirAll(filepath.Dir(p), 0o700)
			if err := os.WriteFile(p, []byte(c.content), 0o600); err != nil {
				t.Fatal(err)
			}
			before := tree(t, root)
			_, err := in.Install(c.a, User, w)
			var r *Refusal
			if !errors.As(err, &r) || !strings.Contains(r.Msg, p) || !strings.Contains(r.Msg, c.wantLine) {
				t.Fatalf("want a refusal naming %s and %s, got %v", p, c.wantLine, err)
			}
			if got := tree(t, root); !equalTrees(got, before) {
				t.Fatalf("a refused install changed files:\n%s", diffTrees(before, got))
			}
			if _, err := os.Stat(in.DataDir); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("a refused install left a record: %v", err)
			}
		})
	}
}

func TestForeignGatehouseEntryRefused(t *testing.T) {
	_, in, w, root := testEnv(t)
	p := filepath.Join(root, "home/.claude.json")
	orig := `{"mcpServers":{"gatehouse":{"type":"http","url":"http://127.0.0.1:7465/mcp"}}}`
	if err := os.WriteFile(p, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := in.Install(Claude, User, w)
	var r *Refusal
	if !errors.As(err, &r) || !strings.Contains(r.Msg, "did not write") {
		t.Fatalf("want a refusal, got %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != orig {
		t.Fatalf("file changed: %s", b)
	}
}

func TestCodexTrustHash(t *testing.T) {
	// currentHash that Codex 0.171's app-server reported for this hook.
	got := codexTrustHash("pre_tool_use", "*", map[string]any{"type": "command", "command": "/tmp/agx/hook.sh codex pre", "timeout": 600})
	if want := "sha256:c5d876ca0ee35c5283eb374c8ef1a3bd341fc894028a70fa569ac606f427efa5"; got != want {
		t.Fatalf("hash %s, want %s", got, want)
	}
	if l := codexEventLabel("PostToolUse"); l != "post_tool_use" {
		t.Fatal(l)
	}
}

func TestIsOurHook(t *testing.T) {
	w := Wiring{Binary: "/opt/gate house/gatehouse", DataDir: "/d/it's"}
	for _, c := range []struct {
		cmd  string
		a    Agent
		want bool
	}{
		{w.hookCommand(Claude), Claude, true},
		{w.hookCommand(Claude), Codex, false},
		{"/usr/local/bin/gatehouse hook codex --data /x", Codex, true},
		// The stand-alone helper, where it is installed beside gatehouse.
		{Wiring{Binary: w.Binary, Hook: "/opt/gate house/gatehouse-sandbox-init", DataDir: w.DataDir}.hookCommand(Gemini), Gemini, true},
		{"/home/me/bin/audit.sh", Claude, false},
		{"echo gatehouse hook claude", Claude, false},
		{"/usr/bin/hook claude --data x", Claude, false},
	} {
		if got := isOurHook(c.cmd, c.a); got != c.want {
			t.Errorf("isOurHook(%q, %s) = %v", c.cmd, c.a, got)
		}
	}
}

func TestParseAgentFailsClosed(t *testing.T) {
	for _, s := range []string{"", "Claude", "opencode", "claude "} {
		if _, err := ParseAgent(s); err == nil {
			t.Errorf("ParseAgent(%q) accepted", s)
		}
	}
	if _, err := ParseScope("machine"); err == nil {
		t.Error("ParseScope accepted machine")
	}
}
