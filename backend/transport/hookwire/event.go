// Package hookwire speaks the hook formats of the agents Gatehouse is wired
// into. It reads what an agent hands its hook on stdin into one Event, and
// writes Gatehouse's Answer back in that agent's format. The hook command
// and the daemon share these types; neither knows another agent's dialect.
package hookwire

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Agent is an agent whose hooks Gatehouse speaks.
type Agent string

const (
	Claude Agent = "claude"
	Codex  Agent = "codex"
	Gemini Agent = "gemini"
	Cursor Agent = "cursor"
)

// Agents lists them in the order help texts name them.
var Agents = []Agent{Claude, Codex, Gemini, Cursor}

// ParseAgent accepts the names above and nothing else.
func ParseAgent(s string) (Agent, error) {
	for _, a := range Agents {
		if string(a) == s {
			return a, nil
		}
	}
	names := make([]string, len(Agents))
	for i, a := range Agents {
		names[i] = string(a)
	}
	return "", fmt.Errorf("unknown agent %q; use one of %s", s, strings.Join(names, ", "))
}

// Title is the agent's name for people.
func (a Agent) Title() string {
	switch a {
	case Claude:
		return "Claude Code"
	case Codex:
		return "Codex CLI"
	case Gemini:
		return "Gemini CLI"
	case Cursor:
		return "Cursor"
	}
	return string(a)
}

// Kind is what happened in the agent.
type Kind string

const (
	// PreTool: the agent is about to run one of its tools.
	PreTool Kind = "pre_tool"
	// PostTool: one of its tools has run.
	PostTool Kind = "post_tool"
	// Prompt: the person sent the agent a prompt.
	Prompt Kind = "prompt"
	// SessionEnd: the agent's run is over.
	SessionEnd Kind = "session_end"
	// Other events are answered with no opinion.
	Other Kind = "other"
)

// Event is one hook invocation, in Gatehouse's terms.
type Event struct {
	Agent Agent `json:"agent"`
	Kind  Kind  `json:"kind"`
	// Name is the agent's own event name (PreToolUse, BeforeTool, …).
	Name string `json:"name"`
	// SessionID is the agent's run id.
	SessionID string `json:"session_id"`
	// AgentSessionID is the agent's own session id when SessionID names
	// the run otherwise (by its process, for agents that tell their MCP
	// servers no id): where its token counts are filed.
	AgentSessionID string `json:"agent_session_id,omitempty"`
	Cwd            string `json:"cwd,omitempty"`
	// Tool is the agent's own tool name; Input its input as sent.
	Tool      string          `json:"tool,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	// Response is a PostTool event's tool result, as sent.
	Response json.RawMessage `json:"response,omitempty"`
	// Failure is a PostTool event's tool failure, as the agent put it
	// (Claude Code's PostToolUseFailure, Gemini CLI's tool_response.error).
	Failure string `json:"failure,omitempty"`
	Prompt  string `json:"prompt,omitempty"`
}

// Verdict is Gatehouse's answer to a PreTool event.
type Verdict string

const (
	Allow Verdict = "allow"
	Deny  Verdict = "deny"
	// None gives no opinion (events other than PreTool).
	None Verdict = "none"
)

// Answer is what the hook tells the agent.
type Answer struct {
	Verdict Verdict `json:"verdict"`
	// Reason is one sentence the model (and the person) sees.
	Reason string `json:"reason,omitempty"`
	// Input, if set, replaces the tool's whole input (a shell command
	// rewritten to run in Gatehouse's sandbox).
	Input json.RawMessage `json:"input,omitempty"`
	// Context, if set, is what the model reads beside an allowed tool's
	// result (Claude Code's additionalContext; other agents have none).
	Context string `json:"context,omitempty"`
}

// MaxStdin bounds what a hook reads from its agent.
const MaxStdin = 10 << 20

// Parse reads an agent's hook input.
func Parse(a Agent, stdin []byte) (Event, error) {
	if len(stdin) > MaxStdin {
		return Event{}, fmt.Errorf("the hook input is larger than %d MiB", MaxStdin>>20)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(stdin, &raw); err != nil {
		return Event{}, fmt.Errorf("the hook input is not a JSON object: %w", err)
	}
	var ev Event
	var err error
	switch a {
	case Claude, Codex:
		ev, err = parseClaude(raw)
	case Gemini:
		ev, err = parseGemini(raw)
	case Cursor:
		ev, err = parseCursor(raw)
	default:
		return Event{}, fmt.Errorf("unknown agent %q", a)
	}
	if err != nil {
		return Event{}, err
	}
	ev.Agent = a
	if ev.Kind == PreTool && ev.Tool == "" {
		return Event{}, fmt.Errorf("the hook input names no tool")
	}
	return ev, nil
}

// Render writes a in the agent's format for ev. The exit code is 0: the
// answer is in the JSON.
func Render(a Agent, ev Event, ans Answer) []byte {
	var out any
	switch a {
	case Claude, Codex:
		out = renderClaude(a, ev, ans)
	case Gemini:
		out = renderGemini(ev, ans)
	case Cursor:
		out = renderCursor(ev, ans)
	default:
		out = map[string]any{}
	}
	b, _ := json.Marshal(out)
	return append(b, '\n')
}

// BlockExit is the exit status every supported agent reads as "block this
// call" whatever the output says; a hook that cannot decide uses it, so a
// failure never lets a call through.
const BlockExit = 2

// Block is the fail-closed answer: a deny in the agent's format for a
// PreTool event (assumed when the input could not be read), with the
// reason also meant for stderr and BlockExit as the exit status.
func Block(a Agent, ev Event, reason string) []byte {
	if ev.Kind == "" {
		ev.Kind = PreTool
	}
	if ev.Name == "" {
		ev.Name = defaultPreName(a)
	}
	return Render(a, ev, Answer{Verdict: Deny, Reason: reason})
}

func defaultPreName(a Agent) string {
	switch a {
	case Gemini:
		return "BeforeTool"
	case Cursor:
		return "beforeShellExecution"
	}
	return "PreToolUse"
}

// str reads an optional string member.
func str(raw map[string]json.RawMessage, key string) (string, error) {
	v, ok := raw[key]
	if !ok || string(v) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", fmt.Errorf("%s is not a string", key)
	}
	return s, nil
}

// strs reads several optional string members, stopping at the first bad one.
func strs(raw map[string]json.RawMessage, fields map[string]*string) error {
	for k, p := range fields {
		s, err := str(raw, k)
		if err != nil {
			return err
		}
		*p = s
	}
	return nil
}

// GatehouseTool reports whether ev calls one of Gatehouse's own MCP tools
// (registered under the server name "gatehouse"): the MCP call itself is
// gated, so the hook lets it through without a second card or row.
func GatehouseTool(ev Event) bool {
	switch ev.Agent {
	case Claude, Codex:
		return strings.HasPrefix(ev.Tool, "mcp__gatehouse__")
	case Gemini:
		return strings.HasPrefix(ev.Tool, "mcp_gatehouse_")
	}
	return false
}
