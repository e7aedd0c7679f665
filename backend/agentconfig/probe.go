package agentconfig

import (
	"encoding/json"
	"os"
	"strings"
)

// HookCommands are the Gatehouse hook commands in agent a's config for
// scope, as the agent will run them.
func (in Installer) HookCommands(a Agent, scope Scope) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range definitionOf(a).targets(in.Env, scope) {
		b, err := os.ReadFile(t.Path)
		if err != nil {
			continue
		}
		for _, c := range hookCommandsIn(b, t.Format, a) {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	return out
}

// hookCommandsIn finds Gatehouse hook commands anywhere in a config file.
func hookCommandsIn(b []byte, f format, a Agent) []string {
	var out []string
	if f == formatTOML {
		m, err := parseTOML(b)
		if err != nil {
			return nil
		}
		walkCommands(m, a, &out)
		return out
	}
	if f == formatJSONC {
		if b2, err := blankComments(b); err == nil {
			b = b2
		}
	}
	var v any
	if json.Unmarshal(b, &v) != nil {
		return nil
	}
	walkCommands(v, a, &out)
	return out
}

func walkCommands(v any, a Agent, out *[]string) {
	switch x := v.(type) {
	case map[string]any:
		if c, ok := x["command"].(string); ok && isOurHook(c, a) {
			*out = append(*out, c)
		}
		for _, e := range x {
			walkCommands(e, a, out)
		}
	case []any:
		for _, e := range x {
			walkCommands(e, a, out)
		}
	}
}

// WithDataDir rewrites a Gatehouse hook command to use another data dir
// (doctor points it at an empty one, where no daemon answers).
func WithDataDir(cmd, dataDir string) string {
	i := strings.LastIndex(cmd, " --data ")
	if i < 0 {
		return cmd
	}
	return cmd[:i] + " --data " + shellQuote(dataDir)
}
