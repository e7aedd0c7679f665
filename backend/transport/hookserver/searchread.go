package hookserver

import (
	"encoding/json"
	"errors"
	"os"
	"strings"

	"github.com/gatehouse-dev/gatehouse/backend/session"
	"github.com/gatehouse-dev/gatehouse/backend/transport/hookwire"
	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// searchAnswer allows an agent's own search (Claude Code's Grep). It runs
// in the agent's process, outside the sandbox, and prints matching lines
// to the model, which the hook cannot redact: so the files the sandbox
// hides (.env and its copies, keys, credential files) are left out of it
// by globs added after the agent's own, which ripgrep applies last. A
// search of one file is pointed at a redacted copy, as a read is.
func (s *Server) searchAnswer(ev hookwire.Event, n native, st *session.State, key session.RunKey) hookwire.Answer {
	if fi, err := os.Stat(n.paths[0]); err == nil && fi.Mode().IsRegular() {
		n.pathKey = n.searchPathKey
		return s.readAnswer(ev, n, st, key)
	}
	input, err := withExclusions(ev.Input, n.globKey, protect.SecretSearchGlobs())
	if err != nil {
		return deny("Gatehouse blocked this search: %v.", err)
	}
	return hookwire.Answer{Verdict: hookwire.Allow, Input: input,
		Reason: "Gatehouse leaves the files it hides (.env, keys, credential files) out of the agent's own search."}
}

var (
	errNotObject = errors.New("the tool input is not an object")
	errNotGlob   = errors.New("its glob is not a string")
)

// withExclusions copies a search's input with "!glob" for each of globs
// after the globs it names in member key (Claude Code splits that member
// at spaces and commas outside braces; none of globs holds either).
func withExclusions(input json.RawMessage, key string, globs []string) (json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if err := json.Unmarshal(input, &m); err != nil {
		return nil, errNotObject
	}
	var own string
	if raw, ok := m[key]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &own); err != nil {
			return nil, errNotGlob
		}
	}
	parts := []string{}
	if own = strings.TrimSpace(own); own != "" {
		parts = append(parts, own)
	}
	for _, g := range globs {
		parts = append(parts, "!"+g)
	}
	b, err := json.Marshal(strings.Join(parts, " "))
	if err != nil {
		return nil, err
	}
	m[key] = b
	return json.Marshal(m)
}
