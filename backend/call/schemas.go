package call

// Input schemas, written by hand so every bound is visible: every object
// closes additionalProperties, every string and array has a maximum.
const (
	schemaRunCommand = `{
  "type": "object",
  "properties": {
    "argv": {"type": "array", "minItems": 1, "maxItems": 4096,
             "items": {"type": "string", "maxLength": 131072},
             "description": "Program and arguments, e.g. [\"go\", \"test\", \"./...\"]. No shell: pipes and globs are not expanded."},
    "cwd": {"type": "string", "maxLength": 4096, "description": "Working directory inside the workspace (default: the workspace root)."},
    "timeout_s": {"type": "integer", "minimum": 1, "maximum": 3600, "description": "Kill the command after this many seconds (default 120)."},
    "stdin": {"type": "string", "maxLength": 1048576, "description": "Text fed to the command's standard input."}
  },
  "required": ["argv"],
  "additionalProperties": false
}`
	schemaReadFile = `{
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
}`
	schemaWriteFile = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "minLength": 1, "maxLength": 4096},
    "content": {"type": "string", "maxLength": 10485760}
  },
  "required": ["path", "content"],
  "additionalProperties": false
}`
	schemaEditFile = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "minLength": 1, "maxLength": 4096},
    "old": {"type": "string", "minLength": 1, "maxLength": 1048576, "description": "Exact text to replace; must match once unless replace_all."},
    "new": {"type": "string", "maxLength": 1048576},
    "replace_all": {"type": "boolean"}
  },
  "required": ["path", "old", "new"],
  "additionalProperties": false
}`
	schemaListDir = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "maxLength": 4096, "description": "Directory (default: the workspace root)."},
    "depth": {"type": "integer", "minimum": 1, "maximum": 5}
  },
  "additionalProperties": false
}`
	schemaSearchFiles = `{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "minLength": 1, "maxLength": 4096, "description": "RE2 regular expression."},
    "path": {"type": "string", "maxLength": 4096},
    "glob": {"type": "string", "maxLength": 1024, "description": "Only files whose path matches, e.g. **/*.go"}
  },
  "required": ["pattern"],
  "additionalProperties": false
}`
	schemaFetchURL = `{
  "type": "object",
  "properties": {
    "url": {"type": "string", "minLength": 1, "maxLength": 8192, "description": "http or https URL."}
  },
  "required": ["url"],
  "additionalProperties": false
}`
	schemaAskHuman = `{
  "type": "object",
  "properties": {
    "question": {"type": "string", "minLength": 1, "maxLength": 8192}
  },
  "required": ["question"],
  "additionalProperties": false
}`
)
