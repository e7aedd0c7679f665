package call

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// TestSchemaSentence: what the validator finds wrong with a call's
// arguments reaches the model as one sentence naming the argument, the
// rule and what the tool takes.
func TestSchemaSentence(t *testing.T) {
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(`{"type": "object", "additionalProperties": false, "required": ["argv"],
		"properties": {
			"argv": {"type": "array", "items": {"type": "string"}, "minItems": 1},
			"timeout_s": {"type": "integer", "minimum": 1, "maximum": 3600},
			"cwd": {"type": "string", "maxLength": 8},
			"unit": {"type": "string", "enum": ["lines", "bytes"]}}}`), &s); err != nil {
		t.Fatal(err)
	}
	res, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	props := slices.Collect(maps.Keys(s.Properties))
	tests := []struct{ args, want string }{
		{`{"argv": ["true"], "timeout_seconds": 5}`, `run_command has no argument "timeout_seconds"; it takes argv, cwd, timeout_s, unit`},
		{`{}`, `run_command needs the argument "argv"`},
		{`{"argv": ["true"], "timeout_s": -5}`, `run_command's timeout_s must be at least 1 (it was -5)`},
		{`{"argv": ["true"], "timeout_s": 7200}`, `run_command's timeout_s must be at most 3600 (it was 7200)`},
		{`{"argv": []}`, `run_command's argv needs at least 1 item`},
		{`{"argv": "ls -la"}`, `run_command's argv must be an array, not a string`},
		{`{"argv": ["x"], "unit": "words"}`, `run_command's unit must be one of lines, bytes (it was words)`},
		{`{"argv": ["x", 3]}`, `each item of run_command's argv must be a string, not an integer`},
		{`{"argv": ["x"], "cwd": "a/long/way/down"}`, `run_command's cwd must be at most 8 characters long (it was 15)`},
		{`[1]`, `invalid arguments for run_command: type: [1] has type "array", want "object"`},
	}
	for _, tt := range tests {
		var inst any
		if err := json.Unmarshal([]byte(tt.args), &inst); err != nil {
			t.Fatal(err)
		}
		verr := res.Validate(inst)
		if verr == nil {
			t.Fatalf("%s: valid", tt.args)
		}
		if got := schemaSentence("run_command", props, verr); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s\n (validator: %v)", tt.args, got, tt.want, verr)
		}
	}
}
