package hookwire

import "encoding/json"

// Cursor's hooks (hooks.json; not runnable on this project's machines, so
// built from its documentation): hook_event_name is beforeShellExecution
// {command, cwd}, beforeMCPExecution {tool_name, tool_input},
// beforeReadFile {file_path}, afterFileEdit {file_path, edits},
// beforeSubmitPrompt {prompt} or stop; conversation_id names the run. It
// answers {"permission": "allow"|"deny", "userMessage", "agentMessage"}
// and cannot rewrite a command, so its shell runs outside the sandbox.

// Cursor's events as Gatehouse sees them: a tool name for each.
const (
	CursorShell = "Shell"
	CursorRead  = "Read"
	CursorEdit  = "Edit"
)

func parseCursor(raw map[string]json.RawMessage) (Event, error) {
	var ev Event
	var command, path string
	if err := strs(raw, map[string]*string{
		"hook_event_name": &ev.Name, "conversation_id": &ev.SessionID, "cwd": &ev.Cwd,
		"tool_name": &ev.Tool, "prompt": &ev.Prompt, "command": &command, "file_path": &path,
	}); err != nil {
		return Event{}, err
	}
	switch ev.Name {
	case "beforeShellExecution":
		ev.Kind, ev.Tool = PreTool, CursorShell
		ev.Input, _ = json.Marshal(map[string]string{"command": command, "cwd": ev.Cwd})
	case "beforeMCPExecution":
		ev.Kind = PreTool
		ev.Input = raw["tool_input"]
	case "beforeReadFile":
		ev.Kind, ev.Tool = PreTool, CursorRead
		ev.Input, _ = json.Marshal(map[string]string{"file_path": path})
	case "afterFileEdit":
		ev.Kind, ev.Tool = PostTool, CursorEdit
		ev.Input, _ = json.Marshal(map[string]string{"file_path": path})
	case "beforeSubmitPrompt":
		ev.Kind = Prompt
	case "stop":
		ev.Kind = Other
	default:
		ev.Kind = Other
	}
	return ev, nil
}

func renderCursor(ev Event, a Answer) any {
	if ev.Kind != PreTool || a.Verdict == None {
		return map[string]any{}
	}
	out := map[string]any{"permission": string(a.Verdict)}
	if a.Reason != "" {
		out["userMessage"] = a.Reason
		out["agentMessage"] = a.Reason
	}
	return out
}
