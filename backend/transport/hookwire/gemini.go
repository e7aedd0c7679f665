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
		ev.Failure = geminiFailure(ev.Response)
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

// geminiFailure is the error an AfterTool tool_response carries ("" for
// none): {"error": {"message": …}} or {"error": "…"}.
func geminiFailure(resp json.RawMessage) string {
	var r struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(resp, &r) != nil || len(r.Error) == 0 || string(r.Error) == "null" {
		return ""
	}
	var e struct {
		Message string `json:"message"`
	}
	var s string
	switch {
	case json.Unmarshal(r.Error, &e) == nil && e.Message != "":
		return e.Message
	case json.Unmarshal(r.Error, &s) == nil && s != "":
		return s
	}
	return "the tool failed"
}
