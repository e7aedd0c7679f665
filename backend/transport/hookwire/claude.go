package hookwire

import "encoding/json"

// Claude Code's hooks (Codex's mirror them): hook_event_name, session_id,
// cwd, tool_name, tool_input, tool_use_id, tool_response, prompt, and
// PostToolUseFailure's error. The
// answer to PreToolUse is hookSpecificOutput.permissionDecision, with
// updatedInput replacing the whole tool_input.

func parseClaude(raw map[string]json.RawMessage) (Event, error) {
	var ev Event
	if err := strs(raw, map[string]*string{
		"hook_event_name": &ev.Name, "session_id": &ev.SessionID, "cwd": &ev.Cwd,
		"tool_name": &ev.Tool, "tool_use_id": &ev.ToolUseID, "prompt": &ev.Prompt,
	}); err != nil {
		return Event{}, err
	}
	ev.Input, ev.Response = raw["tool_input"], raw["tool_response"]
	switch ev.Name {
	case "PreToolUse":
		ev.Kind = PreTool
	case "PostToolUse":
		ev.Kind = PostTool
	case "PostToolUseFailure":
		// The tool ran and failed; Failure says how.
		ev.Kind = PostTool
		if json.Unmarshal(raw["error"], &ev.Failure) != nil || ev.Failure == "" {
			ev.Failure = "the tool failed"
		}
	case "UserPromptSubmit":
		ev.Kind = Prompt
	case "SessionEnd":
		ev.Kind = SessionEnd
	default:
		ev.Kind = Other
	}
	return ev, nil
}

func renderClaude(agent Agent, ev Event, a Answer) any {
	if ev.Kind != PreTool || a.Verdict == None {
		return map[string]any{}
	}
	out := map[string]any{
		"hookEventName":      ev.Name,
		"permissionDecision": string(a.Verdict),
	}
	if a.Reason != "" {
		out["permissionDecisionReason"] = a.Reason
	}
	if a.Verdict == Allow && a.Input != nil {
		out["updatedInput"] = a.Input
	}
	if a.Verdict == Allow && a.Context != "" && agent == Claude {
		out["additionalContext"] = a.Context
	}
	return map[string]any{"hookSpecificOutput": out}
}
