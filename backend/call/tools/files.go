package tools

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"

	"github.com/gatehouse-dev/gatehouse/backend/call"
	"github.com/gatehouse-dev/gatehouse/backend/fsops"
	"github.com/gatehouse-dev/gatehouse/backend/policy"
	"github.com/gatehouse-dev/gatehouse/backend/session"
	"github.com/gatehouse-dev/gatehouse/backend/workspace"
)

var (
	schemaReadFile = json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "minLength": 1, "maxLength": 4096, "description": "File path, relative to the workspace root or absolute."},
    "offset": {"type": "integer", "minimum": 0, "description": "First line to return, from 1 (or first byte, from 0, with unit=bytes)."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 4194304, "description": "How many lines (or bytes) to return."},
    "unit": {"type": "string", "enum": ["lines", "bytes"]},
    "base64": {"type": "boolean", "description": "Return binary content as base64 (unit=bytes)."}
  },
  "required": ["path"],
  "additionalProperties": false
}`)
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
	schemaWriteFile = json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "minLength": 1, "maxLength": 4096},
    "content": {"type": "string", "maxLength": 10485760}
  },
  "required": ["path", "content"],
  "additionalProperties": false
}`)
	outWriteFile = outputSchema(`
    "path": {"type": "string"},
    "bytes": {"type": "integer"},
    "created": {"type": "boolean"},
    "mode": {"type": "string"}`)
	schemaEditFile = json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "minLength": 1, "maxLength": 4096},
    "old": {"type": "string", "minLength": 1, "maxLength": 1048576, "description": "Exact text to replace; must match once unless replace_all."},
    "new": {"type": "string", "maxLength": 1048576},
    "replace_all": {"type": "boolean"}
  },
  "required": ["path", "old", "new"],
  "additionalProperties": false
}`)
	outEditFile = outputSchema(`
    "path": {"type": "string"},
    "replacements": {"type": "integer"},
    "bytes": {"type": "integer"},
    "diff": {"type": "object", "description": "The change as a unified diff (text) with counts."}`)
	schemaListDir = json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "maxLength": 4096, "description": "Directory (default: the workspace root)."},
    "depth": {"type": "integer", "minimum": 1, "maximum": 5}
  },
  "additionalProperties": false
}`)
	outListDir = outputSchema(`
    "path": {"type": "string"},
    "entries": {"type": "array", "items": {"type": "object"}},
    "ignored": {"type": "integer"},
    "truncated": {"type": "boolean"},
    "note": {"type": "string"}`)
	schemaSearchFiles = json.RawMessage(`{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "minLength": 1, "maxLength": 4096, "description": "RE2 regular expression."},
    "path": {"type": "string", "maxLength": 4096},
    "glob": {"type": "string", "maxLength": 1024, "description": "Only files whose path matches, e.g. **/*.go"}
  },
  "required": ["pattern"],
  "additionalProperties": false
}`)
	outSearchFiles = outputSchema(`
    "matches": {"type": "array", "items": {"type": "object"}},
    "files_searched": {"type": "integer"},
    "files_skipped": {"type": "integer"},
    "ignored": {"type": "integer"},
    "truncated": {"type": "boolean"}`)
)

// files plans the file tools' calls with the daemon's redactor: what the
// model reads is redacted within the file around it (window), and what
// it writes must not put a secret's marker in place of the secret.
type files struct {
	redact func(string) string
	window func([]byte, int, int) []byte
}

// fileTools are the workspace file tools. Paths resolve against the
// session's roots with .. and symlinks resolved before the policy sees them,
// and every open is confined to the root by the kernel.
func fileTools(d Deps) []*call.Tool {
	f := files{redact: d.Redact, window: d.Window}
	return []*call.Tool{
		{Name: "read_file", OutputSchema: outReadFile, Title: "Read a file", ReadOnly: true, LocalRead: true, Schema: schemaReadFile, MakePlan: f.planRead,
			Description: "Read a text file by lines (offset is the first line, from 1), or bytes with unit=bytes; binary files report their size and can be read as base64. Reports the total size. Files outside the workspace need approval and come back inside <external_document kind=\"file\">."},
		{Name: "write_file", OutputSchema: outWriteFile, Title: "Write a file", Schema: schemaWriteFile, MakePlan: f.planWrite,
			Description: "Create or replace a file in the workspace with the given content (atomic; keeps the file's mode). Checkpointed first, so it can be undone."},
		{Name: "edit_file", OutputSchema: outEditFile, Title: "Edit a file", Schema: schemaEditFile, MakePlan: planEdit,
			Description: "Replace exact text in a workspace file. old must match exactly once unless replace_all is true. Returns the diff."},
		{Name: "list_dir", OutputSchema: outListDir, Title: "List a directory", ReadOnly: true, LocalRead: true, Schema: schemaListDir, MakePlan: planList,
			Description: "List a workspace directory (depth 1 to 5), skipping what .gitignore hides."},
		{Name: "search_files", OutputSchema: outSearchFiles, Title: "Search files", ReadOnly: true, LocalRead: true, Schema: schemaSearchFiles, MakePlan: f.planSearch,
			Description: "Search workspace files for an RE2 regular expression, optionally only files matching a glob such as **/*.go; skips ignored and binary files. Results are capped."},
	}
}

// resolveDir resolves a directory argument; empty means the workspace root.
func resolveDir(st *session.State, path string) (workspace.Path, error) {
	if path == "" {
		path = "."
	}
	p, err := st.Roots.Resolve(path)
	if err != nil {
		return p, call.Errorf("%v", err)
	}
	return p, nil
}

// jsonOutput returns a listing as structured content and, as MCP asks of
// tools with structured results, the same JSON as text.
func jsonOutput(v any, err error) (call.Output, error) {
	if err != nil {
		return call.Output{}, call.Errorf("%v", err)
	}
	b, _ := json.MarshalIndent(v, "", " ")
	return call.Output{Text: string(b), Structured: call.StructuredOf(v)}, nil
}

// redactMargin is how much of the file on each side of a part read is
// redacted with it: more than a private key or a token spans.
const redactMargin = 64 << 10

func (f files) planRead(ctx context.Context, c *call.InFlight) (*call.Plan, error) {
	st, raw := c.State, c.Req.Args
	var a struct {
		Path   string `json:"path"`
		Offset int64  `json:"offset"`
		Limit  int64  `json:"limit"`
		Unit   string `json:"unit"`
		Base64 bool   `json:"base64"`
	}
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
	p, err := st.Roots.ResolveOutside(a.Path)
	if err != nil {
		return nil, call.Errorf("%v", err)
	}
	plan := &call.Plan{Action: policy.Action{Tool: policy.ToolReadFile, Paths: []string{p.Abs}}}
	plan.Run = func(ctx context.Context, _ *call.InFlight) (call.Output, error) {
		// Policy (and the person, for outside paths) has cleared this path.
		res, err := fsops.ReadFile(ctx, st.Roots, fsops.ReadRequest{Path: p, Unit: a.Unit, Offset: a.Offset, Limit: a.Limit, Base64: a.Base64, AllowOutside: !p.Inside, Margin: redactMargin})
		if err != nil {
			return call.Output{}, call.Errorf("%v", err)
		}
		redactPart(&res, f.window)
		out := call.Output{Text: readText(res), Structured: readResult(res), OutputBytes: res.Bytes, ContentKey: "content"}
		if !p.Inside {
			out.External, out.Source = "file", p.Abs
		}
		return out, nil
	}
	return plan, nil
}

// redactPart redacts a read within the file around it, so that a secret
// the read's edges cut (a private key's body on a page of its own) is
// still replaced; and the bytes of a base64 read, which the pipeline's
// redaction of text cannot see into, saying then that they differ from
// the file's.
func redactPart(res *fsops.ReadResult, window func([]byte, int, int) []byte) {
	switch {
	case res.Base64 != "":
		raw, err := base64.StdEncoding.DecodeString(res.Base64)
		if err != nil {
			return
		}
		around, at := res.Around, res.AroundAt
		if around == nil {
			around, at = raw, 0
		}
		red := window(around, at, at+len(raw))
		if bytes.Equal(red, raw) {
			return
		}
		res.Base64 = base64.StdEncoding.EncodeToString(red)
		note := "Gatehouse replaced secrets in these bytes (private keys, tokens) with [REDACTED:…] markers, so they differ from the file's there"
		if res.Note != "" {
			note = res.Note + "; " + note
		}
		res.Note = note
	case res.Content != "" && res.Around != nil:
		res.Content = string(window(res.Around, res.AroundAt, res.AroundAt+len(res.Content)))
	}
}

// readResult is the whole read: its content (text, or base64 when asked)
// and where it sits in the file.
func readResult(res fsops.ReadResult) map[string]any {
	m := map[string]any{
		"path": res.Path, "content": readText(res), "size": res.Size, "unit": res.Unit, "offset": res.Offset, "bytes": res.Bytes, "truncated": res.Truncated,
	}
	if res.Binary {
		m["binary"] = true
		m["base64"] = res.Base64 != ""
	}
	if res.Lines > 0 {
		m["lines"] = res.Lines
	}
	if res.TotalLines > 0 {
		m["total_lines"] = res.TotalLines
	}
	if res.NextOffset > 0 {
		m["next_offset"] = res.NextOffset
	}
	if res.Note != "" {
		m["note"] = res.Note
	}
	return m
}

func readText(res fsops.ReadResult) string {
	switch {
	case res.Content != "":
		return res.Content
	case res.Base64 != "":
		return res.Base64
	case res.Note != "":
		return res.Note
	}
	return ""
}

func (f files) planWrite(ctx context.Context, c *call.InFlight) (*call.Plan, error) {
	st, raw := c.State, c.Req.Args
	var a struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
	p, err := st.Roots.Resolve(a.Path)
	if err != nil {
		return nil, call.Errorf("%v", err)
	}
	pv, err := fsops.PreviewWrite(ctx, st.Roots, p, []byte(a.Content))
	if err != nil {
		return nil, call.Errorf("%v", err)
	}
	if err := writeKeepsSecrets(pv.Path, pv.Current, a.Content, f.redact); err != nil {
		return nil, err
	}
	plan := &call.Plan{Action: policy.Action{Tool: policy.ToolWriteFile, Paths: []string{p.Abs}}, Diff: pv.Diff.Text,
		Summary: map[string]any{"created": pv.Created, "bytes": pv.NewBytes}}
	plan.Mutates = []workspace.Path{p}
	plan.Run = func(ctx context.Context, _ *call.InFlight) (call.Output, error) {
		res, err := fsops.WriteFile(ctx, st.Roots, p, []byte(a.Content))
		if err != nil {
			return call.Output{}, call.Errorf("%v", err)
		}
		verb := "updated"
		if res.Created {
			verb = "created"
		}
		out := call.Output{Text: "wrote " + res.Path + " (" + verb + ")", Structured: call.StructuredOf(res)}
		if note := markerNote(a.Content); note != "" {
			out = withNotes(out, []string{note})
		}
		return out, nil
	}
	return plan, nil
}

func planEdit(ctx context.Context, c *call.InFlight) (*call.Plan, error) {
	st, raw := c.State, c.Req.Args
	var a struct {
		Path       string `json:"path"`
		Old        string `json:"old"`
		New        string `json:"new"`
		ReplaceAll bool   `json:"replace_all"`
	}
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
	p, err := st.Roots.Resolve(a.Path)
	if err != nil {
		return nil, call.Errorf("%v", err)
	}
	pv, err := fsops.PreviewEdit(ctx, st.Roots, p, a.Old, a.New, a.ReplaceAll)
	if err := editKeepsSecrets(a.Path, err, pv.Current, a.Old, a.New); err != nil {
		return nil, err
	}
	plan := &call.Plan{Action: policy.Action{Tool: policy.ToolEditFile, Paths: []string{p.Abs}}, Diff: pv.Diff.Text,
		Summary: map[string]any{"replacements": pv.Replacements}}
	plan.Mutates = []workspace.Path{p}
	plan.Run = func(ctx context.Context, _ *call.InFlight) (call.Output, error) {
		res, err := fsops.EditFile(ctx, st.Roots, p, a.Old, a.New, a.ReplaceAll)
		if err != nil {
			return call.Output{}, call.Errorf("%v", err)
		}
		return call.Output{Text: res.Diff.Text, Structured: call.StructuredOf(res)}, nil
	}
	return plan, nil
}

func planList(ctx context.Context, c *call.InFlight) (*call.Plan, error) {
	st, raw := c.State, c.Req.Args
	var a struct {
		Path  string `json:"path"`
		Depth int    `json:"depth"`
	}
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
	p, err := resolveDir(st, a.Path)
	if err != nil {
		return nil, err
	}
	plan := &call.Plan{Action: policy.Action{Tool: policy.ToolListDir, Paths: []string{p.Abs}}}
	plan.Run = func(ctx context.Context, _ *call.InFlight) (call.Output, error) {
		res, err := fsops.ListDir(ctx, st.Roots, p, fsops.ListOptions{Depth: a.Depth})
		return jsonOutput(res, err)
	}
	return plan, nil
}

func (f files) planSearch(ctx context.Context, c *call.InFlight) (*call.Plan, error) {
	st, raw := c.State, c.Req.Args
	var a struct {
		Pattern string `json:"pattern"`
		Path    string `json:"path"`
		Glob    string `json:"glob"`
	}
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
	p, err := resolveDir(st, a.Path)
	if err != nil {
		return nil, err
	}
	plan := &call.Plan{Action: policy.Action{Tool: policy.ToolSearchFiles, Paths: []string{p.Abs}}}
	plan.Run = func(ctx context.Context, _ *call.InFlight) (call.Output, error) {
		res, err := fsops.SearchFiles(ctx, st.Roots, fsops.SearchRequest{Pattern: a.Pattern, Path: p, Glob: a.Glob, Redact: f.window})
		return jsonOutput(res, err)
	}
	return plan, nil
}
