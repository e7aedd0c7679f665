package hookwire

import "encoding/json"

// Gemini CLI's hooks: hook_event_name (BeforeTool, AfterTool, BeforeAgent,
// SessionEnd, …), session_id, cwd, tool_name, tool_input, tool_response,
// prompt. It answers {"decision": "allow"|"deny", "reason"}, and
// hookSpecificOutput.tool_input rewrites the input.

func parseGemini(raw map[string]json.RawMessage) (Event, error) {
	var ev Event
	if err := strs(raw, map[string]*string{
		"hook_event_name": &ev.Name, "session_id": &ev.SessionID, "cwd": &ev.Cwd,
		"tool_name": &ev.Tool, "prompt": &ev.Prompt,
	}); err != nil {
		return Event{}, err
	}
	ev.Input, ev.Response = raw["tool_input"], raw["tool_response"]
	switch ev.Name {
	case "BeforeTool":
		ev.Kind = PreTool
	case "AfterTool":
		ev.Kind = PostTool
	case "BeforeAgent":
		if ev.Prompt != "" {
			ev.Kind = Prompt
		} else {
			ev.Kind = Other
		}
	case "SessionEnd":
		ev.Kind = SessionEnd
	default:
		ev.Kind = Other
	}
	return ev, nil
}

func renderGemini(ev Event, a Answer) any {
	if ev.Kind != PreTool || a.Verdict == None {
		return map[string]any{}
	}
	out := map[string]any{"decision": string(a.Verdict)}
	if a.Reason != "" {
		out["reason"] = a.Reason
	}
	if a.Verdict == Allow && a.Input != nil {
		out["hookSpecificOutput"] = map[string]any{"hookEventName": ev.Name, "tool_input": a.Input}
	}
	return out
}
