// Package agenttest drives the real agent CLIs (Claude Code, Codex CLI,
// Gemini CLI) offline: a scripted model server on 127.0.0.1 speaks each
// vendor's streaming API, and a runner starts the CLI non-interactively in
// its own temporary HOME, pointed at that server, with telemetry and update
// checks off. A run returns the CLI's output and every request the model
// server received, so a test can assert what the model saw.
package agenttest

import (
	"encoding/json"
	"fmt"
)

// Step is one model turn: call a tool, or say text.
type Step struct {
	// Tool is the tool's name as the model sees it (Claude Code
	// "mcp__gatehouse__run_command", Codex "mcp__gatehouse__run_command" or
	// "exec_command", Gemini CLI as its request names it). Empty: say Text.
	Tool string
	Args any
	// ArgsFrom, if set, makes Args from the tool results so far (oldest
	// first): a step that names what an earlier one got back (Codex's
	// session id for write_stdin).
	ArgsFrom func(results []string) any
	Text     string

	n int // the step's index, for unique call ids
}

// Call is a step that calls tool with args.
func Call(tool string, args any) Step { return Step{Tool: tool, Args: args} }

// CallWith is a step that calls tool with arguments made from the tool
// results so far.
func CallWith(tool string, args func(results []string) any) Step {
	return Step{Tool: tool, ArgsFrom: args}
}

// Say is a step that answers text and ends the turn.
func Say(text string) Step { return Step{Text: text} }

// Script is what the model does: the step it plays is the number of tool
// results already in the request's history, so the script needs no state
// across requests and survives the CLI's retries.
type Script []Step

// filler answers requests that do not offer the step's tool (titles,
// summaries, compaction) and requests past the script's end.
const filler = "done"

// next picks the step for a request that holds results tool results and
// offers tools.
func (s Script) next(results []string, offered func(string) bool) Step {
	if len(results) >= len(s) {
		return Say(filler)
	}
	st := s[len(results)]
	if st.Tool != "" && !offered(st.Tool) {
		return Say(filler)
	}
	if st.ArgsFrom != nil {
		st.Args = st.ArgsFrom(results)
	}
	st.n = len(results)
	return st
}

// callID is unique per step: CLIs drop or merge history entries that reuse
// an id, which would replay a step forever.
func (st Step) callID(prefix string) string { return fmt.Sprintf("%s_agenttest_%d", prefix, st.n) }

func (st Step) argsJSON() string {
	if st.Args == nil {
		return "{}"
	}
	b, err := json.Marshal(st.Args)
	if err != nil {
		panic("agenttest: tool arguments do not marshal: " + err.Error())
	}
	return string(b)
}
