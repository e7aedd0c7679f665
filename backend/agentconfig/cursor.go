package agentconfig

import (
	"encoding/json"
	"io/fs"
	"path/filepath"
)

// Cursor reads ~/.cursor/mcp.json and ~/.cursor/hooks.json, and the
// machine-wide /etc/cursor/hooks.json. Cursor cannot run on this project's
// machines; this follows its documentation: hooks.json is
// {"version": 1, "hooks": {"<event>": [{"command": …}]}}, and failClosed
// makes a failing hook block the action.
type cursorDef struct{}

var cursorEvents = []string{"beforeShellExecution", "beforeMCPExecution", "beforeReadFile", "afterFileEdit"}

func (cursorDef) paths(env Env, scope Scope) (mcp, hooks string) {
	dir := filepath.Join(env.Home, ".cursor")
	mcp, hooks = filepath.Join(dir, "mcp.json"), filepath.Join(dir, "hooks.json")
	if scope == System {
		hooks = env.system("etc/cursor/hooks.json")
	}
	return mcp, hooks
}

func (c cursorDef) targets(env Env, scope Scope) []target {
	mcp, hooks := c.paths(env, scope)
	perm := fs.FileMode(0o600)
	if scope == System {
		perm = 0o644
	}
	return []target{{Path: mcp, Format: formatJSON, Perm: 0o600}, {Path: hooks, Format: formatJSON, Perm: perm}}
}

func cursorHookIsOurs(elem []byte) bool {
	var h struct {
		Command string `json:"command"`
	}
	return json.Unmarshal(elem, &h) == nil && isOurHook(h.Command, Cursor)
}

func (c cursorDef) add(env Env, scope Scope, w Wiring, cur files) (files, error) {
	mcp, hooks := c.paths(env, scope)
	m, err := parseJSONDoc(cur[mcp], false)
	if err != nil {
		return nil, err
	}
	if err := setMCPEntry(m, mcp, []string{"mcpServers"}, map[string]any{"command": w.Binary, "args": w.mcpArgs(Cursor)}); err != nil {
		return nil, err
	}
	h, err := parseJSONDoc(cur[hooks], false)
	if err != nil {
		return nil, err
	}
	if _, _, ok := h.lookup("version"); !ok {
		h.set(nil, "version", 1)
	}
	handler := map[string]any{"command": w.hookCommand(Cursor), "timeout": claudeHookTimeout, "failClosed": true}
	for _, ev := range cursorEvents {
		p := []string{"hooks", ev}
		if h.hasExactlyOne(p, handler, cursorHookIsOurs) {
			continue
		}
		h.removeElems(p, cursorHookIsOurs)
		h.appendElem(p, handler)
	}
	return files{mcp: m.src, hooks: h.src}, nil
}

func (c cursorDef) strip(env Env, scope Scope, cur files) (files, error) {
	mcp, hooks := c.paths(env, scope)
	out := files{}
	if err := stripMCPFile(cur, out, mcp); err != nil {
		return nil, err
	}
	if b, ok := cur[hooks]; ok {
		h, err := parseJSONDoc(b, false)
		if err != nil {
			return nil, err
		}
		for _, ev := range cursorEvents {
			p := []string{"hooks", ev}
			if h.removeElems(p, cursorHookIsOurs) > 0 && h.isEmptyContainer(p...) {
				h.del([]string{"hooks"}, ev)
			}
		}
		out[hooks] = h.src
	}
	return out, nil
}

func (c cursorDef) wired(env Env, scope Scope, cur files) bool {
	_, hooks := c.paths(env, scope)
	h, err := parseJSONDoc(cur[hooks], false)
	if err != nil {
		return false
	}
	var list []json.RawMessage
	if !h.decode(&list, "hooks", cursorEvents[0]) {
		return false
	}
	for _, e := range list {
		if cursorHookIsOurs(e) {
			return true
		}
	}
	return false
}
