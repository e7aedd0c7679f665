package agentconfig

import (
	"io/fs"
	"path/filepath"
)

// Claude Code keeps MCP servers in .claude.json and hooks in settings.json,
// both under CLAUDE_CONFIG_DIR when it is set, else ~/.claude.json and
// ~/.claude/settings.json. Managed settings (/etc/claude-code) outrank every
// other source, so a repository's disableAllHooks cannot switch them off.
//
// The MCP entry stays in the person's .claude.json even for a system
// install: managed-mcp.json would take exclusive control of MCP servers (the
// person's other servers would stop loading), and managedMcpServers accepts
// only HTTP servers.
type claudeDef struct{}

var claudeEvents = []hookEvent{
	{Name: "PreToolUse", Matcher: "*"},
	{Name: "PostToolUse", Matcher: "*"},
	{Name: "PostToolUseFailure", Matcher: "*"},
	{Name: "UserPromptSubmit"},
	{Name: "SessionEnd"},
}

// claudeHookTimeout is generous: a card may wait for the person.
const claudeHookTimeout = 600

func (claudeDef) paths(env Env, scope Scope) (mcp, settings string) {
	if dir := env.env("CLAUDE_CONFIG_DIR"); dir != "" {
		mcp, settings = filepath.Join(dir, ".claude.json"), filepath.Join(dir, "settings.json")
	} else {
		mcp, settings = filepath.Join(env.Home, ".claude.json"), filepath.Join(env.Home, ".claude", "settings.json")
	}
	if scope == System {
		settings = env.system("etc/claude-code/managed-settings.json")
	}
	return mcp, settings
}

func (c claudeDef) targets(env Env, scope Scope) []target {
	mcp, settings := c.paths(env, scope)
	perm := fs.FileMode(0o600)
	if scope == System {
		perm = 0o644 // every user's Claude Code must read it
	}
	return []target{{Path: mcp, Format: formatJSON, Perm: 0o600}, {Path: settings, Format: formatJSON, Perm: perm}}
}

func (c claudeDef) add(env Env, scope Scope, w Wiring, cur files) (files, error) {
	mcp, settings := c.paths(env, scope)
	out := files{}
	m, err := parseJSONDoc(cur[mcp], false)
	if err != nil {
		return nil, err
	}
	if err := setMCPEntry(m, mcp, []string{"mcpServers"}, map[string]any{
		"type": "stdio", "command": w.Binary, "args": w.mcpArgs(Claude), "env": map[string]any{},
		// Claude Code's per-server tool timeout, in ms; progress does not extend it.
		"timeout": toolTimeoutSeconds * 1000,
	}); err != nil {
		return nil, err
	}
	out[mcp] = m.src
	s, err := parseJSONDoc(cur[settings], false)
	if err != nil {
		return nil, err
	}
	addHookGroups(s, []string{"hooks"}, Claude, claudeEvents, map[string]any{
		"type": "command", "command": w.hookCommand(Claude), "timeout": claudeHookTimeout,
		// Claude Code >= 2.1.295: a hook that fails (crashes, times out,
		// answers garbage) blocks the call instead of letting it through.
		"onFailure": "block",
	})
	out[settings] = s.src
	return out, nil
}

func (c claudeDef) strip(env Env, scope Scope, cur files) (files, error) {
	mcp, settings := c.paths(env, scope)
	out := files{}
	if err := stripMCPFile(cur, out, mcp); err != nil {
		return nil, err
	}
	if b, ok := cur[settings]; ok {
		s, err := parseJSONDoc(b, false)
		if err != nil {
			return nil, err
		}
		stripHookGroups(s, []string{"hooks"}, Claude, claudeEvents)
		out[settings] = s.src
	}
	return out, nil
}

func (c claudeDef) wired(env Env, scope Scope, cur files) bool {
	_, settings := c.paths(env, scope)
	s, err := parseJSONDoc(cur[settings], false)
	return err == nil && hasHookGroups(s, []string{"hooks"}, Claude, claudeEvents[:1])
}
