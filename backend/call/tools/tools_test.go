package tools_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/call"
	"github.com/gatehouse-dev/gatehouse/backend/call/tools"
)

// TestSchemasValidate: every tool's input schema takes what it should and
// refuses what it should not, and every one is closed.
func TestSchemasValidate(t *testing.T) {
	r := call.New(call.Deps{})
	if err := r.Register(tools.Builtin(tools.Deps{})...); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		tool string
		args string
		ok   bool
	}{
		{"run_command", `{"argv":["ls"]}`, true},
		{"run_command", `{"argv":[]}`, false},
		{"run_command", `{"argv":"ls"}`, false},
		{"run_command", `{"argv":["ls"],"shell":true}`, false},
		{"run_command", `{"argv":["ls"],"timeout_s":0}`, false},
		{"run_command", `{"argv":["ls"],"timeout_s":99999}`, false},
		{"read_file", `{"path":"a"}`, true},
		{"read_file", `{"path":""}`, false},
		{"read_file", `{"path":"a","unit":"pages"}`, false},
		{"write_file", `{"path":"a","content":"x"}`, true},
		{"write_file", `{"path":"a"}`, false},
		{"edit_file", `{"path":"a","old":"x","new":"y","replace_all":true}`, true},
		{"edit_file", `{"path":"a","old":"","new":"y"}`, false},
		{"list_dir", `{}`, true},
		{"list_dir", `{"depth":9}`, false},
		{"search_files", `{"pattern":"x","glob":"**/*.go"}`, true},
		{"fetch_url", `{"url":"https://example.com"}`, true},
		{"fetch_url", `{"url":"https://example.com","method":"POST"}`, false},
		{"ask_human", `{"question":"?"}`, true},
		{"ask_human", `{}`, false},
		{"run_command", `{not json`, false},
	}
	for _, tt := range tests {
		err := r.Tool(tt.tool).Validate(json.RawMessage(tt.args))
		if (err == nil) != tt.ok {
			t.Errorf("%s %s: err = %v, want ok=%v", tt.tool, tt.args, err, tt.ok)
		}
	}
	for _, tool := range r.Tools() {
		if !strings.Contains(string(tool.Schema), `"additionalProperties": false`) {
			t.Errorf("%s schema is open", tool.Name)
		}
		if !json.Valid(tool.OutputSchema) {
			t.Errorf("%s output schema is not JSON: %s", tool.Name, tool.OutputSchema)
		}
	}
}
