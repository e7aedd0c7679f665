package call

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Output schemas: each describes the structured part of a tool's result,
// which carries the whole result (Claude Code and Codex show the model
// only this part). Every schema also allows "error" (a call that produced
// no output says why) and "warning" (it ran, but something the agent
// should know went wrong, such as its checkpoint).
var (
	outRunCommand = outputSchema(`
    "exit_code": {"type": "integer", "description": "The command's exit status; -1 when a signal ended it."},
    "signal": {"type": "string", "description": "The signal that ended the command, if any."},
    "killed": {"type": "boolean", "description": "Gatehouse stopped the command (see kill_reason)."},
    "kill_reason": {"type": "string", "description": "timeout, canceled, cpu or protected-path when killed."},
    "notes": {"type": "array", "items": {"type": "string"}, "description": "What Gatehouse saw that the command's own output does not say: a protected path it changed and Gatehouse undid, a full disk."},
    "stdout": {"type": "string", "description": "Standard output (head and tail kept when very long)."},
    "stderr": {"type": "string", "description": "Standard error (head and tail kept when very long)."},
    "stdout_truncated": {"type": "boolean"},
    "stderr_truncated": {"type": "boolean"},
    "stdout_bytes": {"type": "integer", "description": "Bytes the command wrote to stdout."},
    "stderr_bytes": {"type": "integer"},
    "duration_ms": {"type": "integer"},
    "effect": {"type": "object", "description": "What became of the command's changes to the workspace. outcome: unchanged, applied, discarded (the workspace was never touched) or rolled_back. held: the person was asked. conflicts: paths changed in the workspace meanwhile, where the person's version was kept. kept_out: protected paths it wrote, which never land.",
      "properties": {
        "outcome": {"type": "string", "enum": ["unchanged", "applied", "discarded", "rolled_back"]},
        "staged": {"type": "boolean"}, "held": {"type": "boolean"},
        "created": {"type": "integer"}, "modified": {"type": "integer"}, "deleted": {"type": "integer"},
        "reason": {"type": "string"}, "note": {"type": "string"},
        "conflicts": {"type": "array", "items": {"type": "string"}},
        "kept_out": {"type": "array", "items": {"type": "string"}, "description": "Protected paths the command wrote (the host runs or reads them), never applied."}}}`)

	outReadFile = outputSchema(`
    "path": {"type": "string"},
    "content": {"type": "string", "description": "The text read (base64 when asked for a binary file)."},
    "size": {"type": "integer", "description": "The file's size in bytes."},
    "unit": {"type": "string", "enum": ["lines", "bytes"]},
    "offset": {"type": "integer", "description": "Where content starts, in unit (lines count from 1)."},
    "bytes": {"type": "integer"},
    "lines": {"type": "integer"},
    "total_lines": {"type": "integer"},
    "next_offset": {"type": "integer", "description": "Pass as offset to read on."},
    "truncated": {"type": "boolean", "description": "More of the file follows."},
    "binary": {"type": "boolean"},
    "base64": {"type": "boolean"},
    "note": {"type": "string"}`)

	outWriteFile = outputSchema(`
    "path": {"type": "string"},
    "bytes": {"type": "integer"},
    "created": {"type": "boolean"},
    "mode": {"type": "string"}`)

	outEditFile = outputSchema(`
    "path": {"type": "string"},
    "replacements": {"type": "integer"},
    "bytes": {"type": "integer"},
    "diff": {"type": "object", "description": "The change as a unified diff (text) with counts."}`)

	outListDir = outputSchema(`
    "path": {"type": "string"},
    "entries": {"type": "array", "items": {"type": "object"}},
    "ignored": {"type": "integer"},
    "truncated": {"type": "boolean"},
    "note": {"type": "string"}`)

	outSearchFiles = outputSchema(`
    "matches": {"type": "array", "items": {"type": "object"}},
    "files_searched": {"type": "integer"},
    "files_skipped": {"type": "integer"},
    "ignored": {"type": "integer"},
    "truncated": {"type": "boolean"}`)

	outFetchURL = outputSchema(`
    "status": {"type": "integer"},
    "content_type": {"type": "string"},
    "final_url": {"type": "string"},
    "body": {"type": "string", "description": "The page, labelled as outside content."},
    "bytes": {"type": "integer"},
    "truncated": {"type": "boolean"}`)

	outAskHuman = outputSchema(`
    "answer": {"type": "string"},
    "via": {"type": "string"}`)
)

// outputSchema closes an object schema over the given properties plus the
// two every result may carry.
func outputSchema(props string) json.RawMessage {
	s := fmt.Sprintf(`{
  "type": "object",
  "properties": {%s,
    "error": {"type": "string", "description": "Why the call produced no result."},
    "warning": {"type": "string", "description": "Something the agent should know although the call ran."}
  },
  "additionalProperties": false
}`, strings.TrimRight(props, "\n"))
	if !json.Valid([]byte(s)) {
		panic("call: invalid output schema: " + s)
	}
	return json.RawMessage(s)
}
