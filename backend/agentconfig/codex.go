package agentconfig

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// Codex CLI reads CODEX_HOME/config.toml (default ~/.codex) for MCP servers
// and CODEX_HOME/hooks.json for hooks. It skips a user hook until the person
// trusts it: trust is a [hooks.state."<file>:<event>:<group>:<handler>"]
// table in config.toml whose trusted_hash is the hash of the hook's
// normalized definition (codexTrustHash), so install writes that table
// next to the MCP entry. Hooks in /etc/codex/requirements.toml are managed:
// they need no trust and cannot be disabled from a project.
type codexDef struct{}

var codexEvents = []hookEvent{{Name: "PreToolUse", Matcher: "*"}, {Name: "PostToolUse", Matcher: "*"}}

const codexHookTimeout = 600

func (codexDef) home(env Env) string {
	if h := env.env("CODEX_HOME"); h != "" {
		return h
	}
	return filepath.Join(env.Home, ".codex")
}

func (c codexDef) paths(env Env) (config, hooks, requirements string) {
	h := c.home(env)
	return filepath.Join(h, "config.toml"), filepath.Join(h, "hooks.json"), env.system("etc/codex/requirements.toml")
}

func (c codexDef) targets(env Env, scope Scope) []target {
	config, hooks, req := c.paths(env)
	t := []target{{Path: config, Format: formatTOML, Perm: 0o600}}
	if scope == System {
		return append(t, target{Path: req, Format: formatTOML, Perm: fs.FileMode(0o644)})
	}
	return append(t, target{Path: hooks, Format: formatJSON, Perm: 0o600})
}

func (codexDef) handler(w Wiring) map[string]any {
	return map[string]any{"type": "command", "command": w.hookCommand(Codex), "timeout": codexHookTimeout}
}

// owns tells Gatehouse's tables in config.toml from any the person added.
func (c codexDef) owns(env Env) func(string) bool {
	_, hooks, _ := c.paths(env)
	return func(h string) bool {
		return h == "[mcp_servers.gatehouse]" || strings.HasPrefix(h, "[mcp_servers.gatehouse.") ||
			strings.HasPrefix(h, "[hooks.state."+tomlString(hooks + ":")[:len(tomlString(hooks+":"))-1]) ||
			h == "[[hooks.PreToolUse]]" || h == "[[hooks.PreToolUse.hooks]]" ||
			h == "[[hooks.PostToolUse]]" || h == "[[hooks.PostToolUse.hooks]]"
	}
}

func (c codexDef) add(env Env, scope Scope, w Wiring, cur files) (files, error) {
	config, hooks, req := c.paths(env)
	base := tomlStripBlock(cur[config], c.owns(env))
	doc, err := parseTOML(base)
	if err != nil {
		return nil, err
	}
	if _, ok := tomlTable(doc, "mcp_servers", "gatehouse"); ok {
		return nil, &Refusal{Msg: fmt.Sprintf("%s already has an [mcp_servers.gatehouse] table that Gatehouse did not write; remove it and run install again", config)}
	}
	var body strings.Builder
	fmt.Fprintf(&body, "[mcp_servers.gatehouse]\ncommand = %s\nargs = %s\n", tomlString(w.Binary), tomlStringArray(w.mcpArgs(Codex)))
	// Without it `codex exec` refuses every MCP call ("requires approval,
	// but approval policy is never"); Gatehouse does its own asking.
	body.WriteString("default_tools_approval_mode = \"approve\"\n")
	fmt.Fprintf(&body, "tool_timeout_sec = %d\n", toolTimeoutSeconds)
	out := files{}
	if scope == System {
		r, err := c.addManaged(cur[req], w)
		if err != nil {
			return nil, err
		}
		out[req] = r
	} else {
		d, err := parseJSONDoc(cur[hooks], false)
		if err != nil {
			return nil, err
		}
		addHookGroups(d, []string{"hooks"}, Codex, codexEvents, c.handler(w))
		out[hooks] = d.src
		trusted, _ := tomlTable(doc, "hooks", "state")
		for _, ev := range codexEvents {
			key, hash, ok := c.trustEntry(d, hooks, ev)
			if !ok {
				continue
			}
			if _, theirs := trusted[key]; theirs {
				continue // the person trusted it in Codex already; leave their table
			}
			fmt.Fprintf(&body, "\n[hooks.state.%s]\ntrusted_hash = %s\n", tomlString(key), tomlString(hash))
		}
	}
	next := tomlAppendBlock(base, Codex, body.String())
	if _, err := parseTOML(next); err != nil {
		return nil, &Refusal{Msg: fmt.Sprintf("%s cannot take Gatehouse's tables without becoming invalid TOML (%v); tidy it and run install again", config, err)}
	}
	out[config] = next
	return out, nil
}

// trustEntry finds Gatehouse's group for ev in hooks.json and returns its
// trust key and hash.
func (codexDef) trustEntry(d *jsonDoc, hooksPath string, ev hookEvent) (key, hash string, ok bool) {
	var groups []json.RawMessage
	if !d.decode(&groups, "hooks", ev.Name) {
		return "", "", false
	}
	for i, g := range groups {
		if !groupIsOurs(g, Codex) {
			continue
		}
		var grp struct {
			Matcher string           `json:"matcher"`
			Hooks   []map[string]any `json:"hooks"`
		}
		if json.Unmarshal(g, &grp) != nil || len(grp.Hooks) != 1 {
			return "", "", false
		}
		label := codexEventLabel(ev.Name)
		return fmt.Sprintf("%s:%s:%d:0", hooksPath, label, i), codexTrustHash(label, grp.Matcher, grp.Hooks[0]), true
	}
	return "", "", false
}

// addManaged puts the hooks into requirements.toml, where Codex treats them
// as managed.
func (codexDef) addManaged(cur []byte, w Wiring) ([]byte, error) {
	base := tomlStripBlock(cur, func(h string) bool {
		return strings.HasPrefix(h, "[[hooks.PreToolUse") || strings.HasPrefix(h, "[[hooks.PostToolUse")
	})
	if _, err := parseTOML(base); err != nil {
		return nil, err
	}
	var body strings.Builder
	for i, ev := range codexEvents {
		if i > 0 {
			body.WriteString("\n")
		}
		fmt.Fprintf(&body, "[[hooks.%s]]\nmatcher = %s\n\n[[hooks.%s.hooks]]\ntype = \"command\"\ncommand = %s\ntimeout = %d\n",
			ev.Name, tomlString(ev.Matcher), ev.Name, tomlString(w.hookCommand(Codex)), codexHookTimeout)
	}
	next := tomlAppendBlock(base, Codex, body.String())
	if _, err := parseTOML(next); err != nil {
		return nil, &Refusal{Msg: fmt.Sprintf("requirements.toml cannot take Gatehouse's hooks without becoming invalid TOML (%v); tidy it and run install again", err)}
	}
	return next, nil
}

func (c codexDef) strip(env Env, scope Scope, cur files) (files, error) {
	config, hooks, req := c.paths(env)
	out := files{}
	if b, ok := cur[config]; ok {
		if _, err := parseTOML(b); err != nil {
			return nil, err
		}
		out[config] = tomlStripBlock(b, c.owns(env))
	}
	if b, ok := cur[req]; ok && scope == System {
		if _, err := parseTOML(b); err != nil {
			return nil, err
		}
		out[req] = tomlStripBlock(b, func(h string) bool {
			return strings.HasPrefix(h, "[[hooks.PreToolUse") || strings.HasPrefix(h, "[[hooks.PostToolUse")
		})
	}
	if b, ok := cur[hooks]; ok && scope == User {
		d, err := parseJSONDoc(b, false)
		if err != nil {
			return nil, err
		}
		stripHookGroups(d, []string{"hooks"}, Codex, codexEvents)
		out[hooks] = d.src
	}
	return out, nil
}

// wired needs the hook present and trusted (or managed): an untrusted hook
// is one Codex silently skips.
func (c codexDef) wired(env Env, scope Scope, cur files) bool {
	config, hooks, req := c.paths(env)
	if scope == System {
		return tomlHasBlock(cur[req]) && strings.Contains(string(cur[req]), " hook codex ")
	}
	d, err := parseJSONDoc(cur[hooks], false)
	if err != nil || !hasHookGroups(d, []string{"hooks"}, Codex, codexEvents[:1]) {
		return false
	}
	doc, err := parseTOML(cur[config])
	if err != nil {
		return false
	}
	key, hash, ok := c.trustEntry(d, hooks, codexEvents[0])
	state, _ := tomlTable(doc, "hooks", "state", key)
	return ok && state["trusted_hash"] == hash
}
