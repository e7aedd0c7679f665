package agentconfig

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// hookEvent is one hook event and the matcher group Gatehouse puts there,
// in the shape Claude Code, Codex and Gemini CLI share:
// {"matcher": "*", "hooks": [{"type": "command", "command": …, …}]}.
type hookEvent struct {
	Name string
	// Matcher is empty for events that take none (prompts, session end).
	Matcher string
}

func hookGroup(ev hookEvent, handler map[string]any) map[string]any {
	g := map[string]any{}
	if ev.Matcher != "" {
		g["matcher"] = ev.Matcher
	}
	g["hooks"] = []any{handler}
	return g
}

// groupIsOurs reports whether a matcher group holds a Gatehouse hook.
func groupIsOurs(elem []byte, a Agent) bool {
	var g struct {
		Hooks []struct {
			Command string `json:"command"`
		} `json:"hooks"`
	}
	if json.Unmarshal(elem, &g) != nil {
		return false
	}
	for _, h := range g.Hooks {
		if isOurHook(h.Command, a) {
			return true
		}
	}
	return false
}

// addHookGroups replaces Gatehouse's groups under path (e.g. "hooks") with
// one fresh group per event, after the person's own groups.
func addHookGroups(d *jsonDoc, path []string, a Agent, events []hookEvent, handler map[string]any) {
	for _, ev := range events {
		p := append(append([]string{}, path...), ev.Name)
		want := hookGroup(ev, handler)
		if d.hasExactlyOne(p, want, func(e []byte) bool { return groupIsOurs(e, a) }) {
			continue // already as install writes it: leave the text alone
		}
		d.removeElems(p, func(e []byte) bool { return groupIsOurs(e, a) })
		d.appendElem(p, want)
	}
}

// hasExactlyOne reports whether the array at path holds exactly one element
// that mine matches, and it equals want.
func (d *jsonDoc) hasExactlyOne(path []string, want any, mine func([]byte) bool) bool {
	var elems []json.RawMessage
	if !d.decode(&elems, path...) {
		return false
	}
	var hit []json.RawMessage
	for _, e := range elems {
		if mine(e) {
			hit = append(hit, e)
		}
	}
	return len(hit) == 1 && sameJSON(hit[0], want)
}

// sameJSON compares a document fragment with a value, ignoring layout.
func sameJSON(raw []byte, v any) bool {
	var a, b any
	wb, _ := json.Marshal(v)
	if json.Unmarshal(raw, &a) != nil || json.Unmarshal(wb, &b) != nil {
		return false
	}
	ab, _ := json.Marshal(a)
	bb, _ := json.Marshal(b)
	return string(ab) == string(bb)
}

// stripHookGroups removes Gatehouse's groups under path, and the event
// arrays and hooks object that this leaves empty.
func stripHookGroups(d *jsonDoc, path []string, a Agent, events []hookEvent) {
	for _, ev := range events {
		p := append(append([]string{}, path...), ev.Name)
		if d.removeElems(p, func(e []byte) bool { return groupIsOurs(e, a) }) > 0 && d.isEmptyContainer(p...) {
			d.del(path, ev.Name)
		}
	}
	if len(path) > 0 && d.isEmptyContainer(path...) {
		d.del(path[:len(path)-1], path[len(path)-1])
	}
}

// hasHookGroups reports whether every event carries a Gatehouse group.
func hasHookGroups(d *jsonDoc, path []string, a Agent, events []hookEvent) bool {
	for _, ev := range events {
		p := append(append([]string{}, path...), ev.Name)
		var groups []json.RawMessage
		if !d.decode(&groups, p...) {
			return false
		}
		found := false
		for _, g := range groups {
			found = found || groupIsOurs(g, a)
		}
		if !found {
			return false
		}
	}
	return true
}

// ourMCPEntry reports whether an MCP server entry is the Gatehouse bridge
// (so uninstall never removes a "gatehouse" entry the person wrote by hand,
// e.g. an HTTP one).
func ourMCPEntry(d *jsonDoc, path ...string) bool {
	var e struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	if !d.decode(&e, path...) {
		return false
	}
	return strings.HasPrefix(filepath.Base(e.Command), "gatehouse") && len(e.Args) > 0 && e.Args[0] == "mcp"
}

// setMCPEntry writes the bridge entry at path, refusing to replace a
// "gatehouse" entry that is not Gatehouse's bridge.
func setMCPEntry(d *jsonDoc, file string, path []string, entry map[string]any) error {
	full := append(append([]string{}, path...), "gatehouse")
	if s, e, ok := d.lookup(full...); ok {
		if !ourMCPEntry(d, full...) {
			return &Refusal{Msg: fmt.Sprintf("%s already has an MCP server named \"gatehouse\" that Gatehouse did not write; remove it (or rename it) and run install again", file)}
		}
		if sameJSON(d.src[s:e], entry) {
			return nil
		}
	}
	d.set(path, "gatehouse", entry)
	return nil
}

// stripMCPEntry removes the bridge entry at path (and an mcpServers object
// it leaves empty).
func stripMCPEntry(d *jsonDoc, path []string) {
	full := append(append([]string{}, path...), "gatehouse")
	if ourMCPEntry(d, full...) {
		d.del(path, "gatehouse")
		if d.isEmptyContainer(path...) {
			d.del(path[:len(path)-1], path[len(path)-1])
		}
	}
}

// stripMCPFile puts into out the JSON file at path in cur (when there is
// one) less the bridge entry of its mcpServers object.
func stripMCPFile(cur, out files, path string) error {
	b, ok := cur[path]
	if !ok {
		return nil
	}
	m, err := parseJSONDoc(b, false)
	if err != nil {
		return err
	}
	stripMCPEntry(m, []string{"mcpServers"})
	out[path] = m.src
	return nil
}

// Refusal is an install or uninstall that would damage the person's
// config; Msg is one sentence for them.
type Refusal struct{ Msg string }

func (r *Refusal) Error() string { return r.Msg }
