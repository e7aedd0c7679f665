package hookwire

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestParse reads each agent's hook input as AGENTS.md documents it.
func TestParse(t *testing.T) {
	tests := []struct {
		name  string
		agent Agent
		stdin string
		want  Event
	}{
		{"claude bash", Claude,
			`{"session_id":"s1","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"u1"}`,
			Event{Agent: Claude, Kind: PreTool, Name: "PreToolUse", SessionID: "s1", Cwd: "/w", Tool: "Bash", Input: json.RawMessage(`{"command":"ls"}`), ToolUseID: "u1"}},
		{"codex prompt", Codex,
			`{"session_id":"s2","hook_event_name":"UserPromptSubmit","prompt":"fix it"}`,
			Event{Agent: Codex, Kind: Prompt, Name: "UserPromptSubmit", SessionID: "s2", Prompt: "fix it"}},
		{"claude post", Claude,
			`{"session_id":"s1","hook_event_name":"PostToolUse","tool_name":"Edit","tool_response":{"ok":true}}`,
			Event{Agent: Claude, Kind: PostTool, Name: "PostToolUse", SessionID: "s1", Tool: "Edit", Response: json.RawMessage(`{"ok":true}`)}},
		{"claude post failure", Claude,
			`{"session_id":"s1","hook_event_name":"PostToolUseFailure","tool_name":"Edit","tool_use_id":"u1","error":"String to replace not found in file."}`,
			Event{Agent: Claude, Kind: PostTool, Name: "PostToolUseFailure", SessionID: "s1", Tool: "Edit", ToolUseID: "u1", Failure: "String to replace not found in file."}},
		{"gemini after tool failed", Gemini,
			`{"session_id":"g1","hook_event_name":"AfterTool","tool_name":"replace","tool_response":{"llmContent":"x","error":{"message":"no match","type":"EDIT_NO_OCCURRENCE_FOUND"}}}`,
			Event{Agent: Gemini, Kind: PostTool, Name: "AfterTool", SessionID: "g1", Tool: "replace", Response: json.RawMessage(`{"llmContent":"x","error":{"message":"no match","type":"EDIT_NO_OCCURRENCE_FOUND"}}`), Failure: "no match"}},
		{"gemini after tool", Gemini,
			`{"session_id":"g1","hook_event_name":"AfterTool","tool_name":"replace","tool_response":{"llmContent":"ok","error":null}}`,
			Event{Agent: Gemini, Kind: PostTool, Name: "AfterTool", SessionID: "g1", Tool: "replace", Response: json.RawMessage(`{"llmContent":"ok","error":null}`)}},
		{"gemini shell", Gemini,
			`{"session_id":"g1","cwd":"/w","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`,
			Event{Agent: Gemini, Kind: PreTool, Name: "BeforeTool", SessionID: "g1", Cwd: "/w", Tool: "run_shell_command", Input: json.RawMessage(`{"command":"ls"}`)}},
		{"gemini agent without prompt", Gemini,
			`{"session_id":"g1","hook_event_name":"BeforeAgent"}`,
			Event{Agent: Gemini, Kind: Other, Name: "BeforeAgent", SessionID: "g1"}},
		{"cursor shell", Cursor,
			`{"conversation_id":"c1","hook_event_name":"beforeShellExecution","command":"ls","cwd":"/w"}`,
			Event{Agent: Cursor, Kind: PreTool, Name: "beforeShellExecution", SessionID: "c1", Cwd: "/w", Tool: CursorShell, Input: json.RawMessage(`{"command":"ls","cwd":"/w"}`)}},
		{"cursor read", Cursor,
			`{"conversation_id":"c1","hook_event_name":"beforeReadFile","file_path":"/w/a"}`,
			Event{Agent: Cursor, Kind: PreTool, Name: "beforeReadFile", SessionID: "c1", Tool: CursorRead, Input: json.RawMessage(`{"file_path":"/w/a"}`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.agent, []byte(tt.stdin))
			if err != nil {
				t.Fatal(err)
			}
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(tt.want)
			if string(g) != string(w) {
				t.Fatalf("got  %s\nwant %s", g, w)
			}
		})
	}
}

// TestParseRefuses: bad input is an error that says what is wrong, never
// an event with a guessed tool.
func TestParseRefuses(t *testing.T) {
	tests := []struct {
		name  string
		agent Agent
		stdin string
		want  string
	}{
		{"not json", Claude, `{`, "not a JSON object"},
		{"array", Gemini, `[]`, "not a JSON object"},
		{"no tool", Claude, `{"hook_event_name":"PreToolUse"}`, "names no tool"},
		{"tool not a string", Claude, `{"hook_event_name":"PreToolUse","tool_name":3}`, "tool_name is not a string"},
		{"unknown agent", Agent("vim"), `{}`, "unknown agent"},
		{"huge", Claude, `"` + strings.Repeat("a", MaxStdin) + `"`, "larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.agent, []byte(tt.stdin))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to say %q", err, tt.want)
			}
		})
	}
}

// TestRender writes each agent's answer format; Block denies even when
// the input could not be read.
func TestRender(t *testing.T) {
	pre := func(a Agent, name string) Event { return Event{Agent: a, Kind: PreTool, Name: name} }
	in := json.RawMessage(`{"command":"gatehouse exec x"}`)
	tests := []struct {
		name string
		out  []byte
		want string
	}{
		{"claude deny", Render(Claude, pre(Claude, "PreToolUse"), Answer{Verdict: Deny, Reason: "no"}),
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`},
		{"codex allow rewrites", Render(Codex, pre(Codex, "PreToolUse"), Answer{Verdict: Allow, Input: in}),
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"gatehouse exec x"}}}`},
		{"gemini allow rewrites", Render(Gemini, pre(Gemini, "BeforeTool"), Answer{Verdict: Allow, Input: in}),
			`{"decision":"allow","hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"gatehouse exec x"}}}`},
		{"cursor deny", Render(Cursor, pre(Cursor, "beforeShellExecution"), Answer{Verdict: Deny, Reason: "no"}),
			`{"agentMessage":"no","permission":"deny","userMessage":"no"}`},
		{"claude allow with context", Render(Claude, pre(Claude, "PreToolUse"), Answer{Verdict: Allow, Input: in, Context: "left out: a.yml"}),
			`{"hookSpecificOutput":{"additionalContext":"left out: a.yml","hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"gatehouse exec x"}}}`},
		{"codex has no context", Render(Codex, pre(Codex, "PreToolUse"), Answer{Verdict: Allow, Context: "left out: a.yml"}),
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`},
		{"none says nothing", Render(Claude, pre(Claude, "PreToolUse"), Answer{Verdict: None}), `{}`},
		{"post says nothing", Render(Gemini, Event{Agent: Gemini, Kind: PostTool, Name: "AfterTool"}, Answer{Verdict: Deny}), `{}`},
		{"block unread claude", Block(Claude, Event{}, "daemon down"),
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"daemon down"}}`},
		{"block unread gemini", Block(Gemini, Event{}, "daemon down"), `{"decision":"deny","reason":"daemon down"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.TrimSuffix(string(tt.out), "\n"); got != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestGatehouseTool tells Gatehouse's own MCP tools by each agent's naming.
func TestGatehouseTool(t *testing.T) {
	tests := []struct {
		ev   Event
		want bool
	}{
		{Event{Agent: Claude, Tool: "mcp__gatehouse__run_command"}, true},
		{Event{Agent: Codex, Tool: "mcp__other__run_command"}, false},
		{Event{Agent: Gemini, Tool: "mcp_gatehouse_read_file"}, true},
		{Event{Agent: Gemini, Tool: "run_shell_command"}, false},
		{Event{Agent: Cursor, Tool: "mcp__gatehouse__run_command"}, false},
	}
	for _, tt := range tests {
		if got := GatehouseTool(tt.ev); got != tt.want {
			t.Errorf("GatehouseTool(%s %s) = %v, want %v", tt.ev.Agent, tt.ev.Tool, got, tt.want)
		}
	}
}
