package agentconfig

import (
	"io/fs"
	"path/filepath"
)

// Gemini CLI reads ~/.gemini/settings.json (GEMINI_CLI_HOME replaces the
// home directory) and, above every other source, the system settings
// (/etc/gemini-cli/settings.json, or GEMINI_CLI_SYSTEM_SETTINGS_PATH). Its
// settings files may hold comments.
type geminiDef struct{}

var geminiEvents = []hookEvent{
	{Name: "BeforeTool", Matcher: "*"},
	{Name: "AfterTool", Matcher: "*"},
	{Name: "BeforeAgent"},
}

// geminiHookTimeoutMS: Gemini counts hook timeouts in milliseconds.
const geminiHookTimeoutMS = 600_000

func (geminiDef) paths(env Env, scope Scope) (user, hooks string) {
	home := env.Home
	if h := env.env("GEMINI_CLI_HOME"); h != "" {
		home = h
	}
	user = filepath.Join(home, ".gemini", "settings.json")
	hooks = user
	if scope == System {
		hooks = env.env("GEMINI_CLI_SYSTEM_SETTINGS_PATH")
		if hooks == "" {
			hooks = env.system("etc/gemini-cli/settings.json")
		}
	}
	return user, hooks
}

func (g geminiDef) targets(env Env, scope Scope) []target {
	user, hooks := g.paths(env, scope)
	t := []target{{Path: user, Format: formatJSONC, Perm: 0o600}}
	if hooks != user {
		t = append(t, target{Path: hooks, Format: formatJSONC, Perm: fs.FileMode(0o644)})
	}
	return t
}

func (g geminiDef) add(env Env, scope Scope, w Wiring, cur files) (files, error) {
	user, hooks := g.paths(env, scope)
	u, err := parseJSONDoc(cur[user], true)
	if err != nil {
		return nil, err
	}
	// Without "trust", headless Gemini CLI offers the model no Gatehouse
	// tool (it would ask a person who is not there).
	if err := setMCPEntry(u, user, []string{"mcpServers"}, map[string]any{
		"command": w.Binary, "args": w.mcpArgs(Gemini), "trust": true, "timeout": toolTimeoutSeconds * 1000,
	}); err != nil {
		return nil, err
	}
	h := u
	if hooks != user {
		if h, err = parseJSONDoc(cur[hooks], true); err != nil {
			return nil, err
		}
		// Settings merge with the system file last, so this outranks a
		// workspace's hooksConfig.enabled = false.
		if !h.decode(new(bool), "hooksConfig", "enabled") {
			h.set([]string{"hooksConfig"}, "enabled", true)
		}
	}
	addHookGroups(h, []string{"hooks"}, Gemini, geminiEvents, map[string]any{
		"type": "command", "name": "gatehouse", "command": w.hookCommand(Gemini), "timeout": geminiHookTimeoutMS,
	})
	out := files{user: u.src}
	out[hooks] = h.src
	return out, nil
}

func (g geminiDef) strip(env Env, scope Scope, cur files) (files, error) {
	user, hooks := g.paths(env, scope)
	out := files{}
	for _, p := range []string{user, hooks} {
		b, ok := cur[p]
		if !ok {
			continue
		}
		if n, done := out[p]; done {
			b = n
		}
		d, err := parseJSONDoc(b, true)
		if err != nil {
			return nil, err
		}
		if p == user {
			stripMCPEntry(d, []string{"mcpServers"})
		}
		if p == hooks {
			stripHookGroups(d, []string{"hooks"}, Gemini, geminiEvents)
			if p != user {
				var on bool
				if d.decode(&on, "hooksConfig", "enabled") && on {
					d.del([]string{"hooksConfig"}, "enabled")
					if d.isEmptyContainer("hooksConfig") {
						d.del(nil, "hooksConfig")
					}
				}
			}
		}
		out[p] = d.src
	}
	return out, nil
}

func (g geminiDef) wired(env Env, scope Scope, cur files) bool {
	_, hooks := g.paths(env, scope)
	d, err := parseJSONDoc(cur[hooks], true)
	return err == nil && hasHookGroups(d, []string{"hooks"}, Gemini, geminiEvents[:1])
}
