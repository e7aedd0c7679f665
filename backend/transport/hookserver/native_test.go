package hookserver

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/transport/hookwire"
)

// Gemini CLI 0.61's tools, as its bundle registers them: each is judged,
// none is left unknown (which the hook refuses outright).
func TestClassifyGeminiTools(t *testing.T) {
	const cwd = "/w"
	for _, c := range []struct {
		tool, input string
		want        class
		paths       []string
		searchKey   string
	}{
		{"grep_search", `{"pattern":"x"}`, classRead, []string{"/w"}, "dir_path"},
		{"grep_search", `{"pattern":"x","dir_path":"/w/src"}`, classRead, []string{"/w/src"}, "dir_path"},
		{"search_file_content", `{"pattern":"x","path":"src"}`, classRead, []string{"/w/src"}, "path"},
		{"read_many_files", `{"include":["src/**/*.ts"]}`, classRead, []string{"/w/src/**/*.ts"}, ""},
		{"read_many_files", `{"paths":["a.md"]}`, classRead, []string{"/w/a.md"}, ""},
		{"read_file", `{"file_path":"a.go"}`, classRead, []string{"/w/a.go"}, ""},
		{"list_directory", `{"dir_path":"/w/src"}`, classRead, []string{"/w/src"}, ""},
		{"glob", `{"pattern":"*.go"}`, classRead, []string{"/w"}, ""},
		{"replace", `{"file_path":"a.go"}`, classEdit, []string{"/w/a.go"}, ""},
		{"write_file", `{"file_path":"a.go","content":""}`, classEdit, []string{"/w/a.go"}, ""},
		{"run_shell_command", `{"command":"ls"}`, classShell, nil, ""},
		{"web_fetch", `{"prompt":"see https://example.test/x"}`, classFetch, nil, ""},
		{"update_topic", `{"title":"t"}`, classInert, nil, ""},
		{"ask_user", `{}`, classInert, nil, ""},
		{"enter_plan_mode", `{}`, classInert, nil, ""},
		{"exit_plan_mode", `{"plan_filename":"p.md"}`, classInert, nil, ""},
		{"activate_skill", `{"name":"s"}`, classInert, nil, ""},
		{"list_background_processes", `{}`, classInert, nil, ""},
		{"read_background_output", `{"pid":4}`, classInert, nil, ""},
		{"tracker_create_task", `{}`, classInert, nil, ""},
		{"list_mcp_resources", `{}`, classInert, nil, ""},
		{"take_snapshot", `{}`, classUnknown, nil, ""},
	} {
		n, err := classify(hookwire.Event{Agent: hookwire.Gemini, Tool: c.tool, Cwd: cwd, Input: json.RawMessage(c.input)}, nil)
		if err != nil || n.cls != c.want || !slices.Equal(n.paths, c.paths) || n.searchPathKey != c.searchKey {
			t.Errorf("%s %s: class %d, paths %q, search key %q (%v); want class %d, %q, %q", c.tool, c.input, n.cls, n.paths, n.searchPathKey, err, c.want, c.paths, c.searchKey)
		}
	}
}

// Claude Code 2.1's tools beyond the file and shell ones: each judged.
func TestClassifyClaudeTools(t *testing.T) {
	for _, c := range []struct {
		tool, input string
		want        class
		paths       []string
		failed      bool
	}{
		{"Monitor", `{"command":"tail -f x.log","timeout_ms":30000}`, classShell, nil, false},
		{"CronCreate", `{"cron":"0 9 * * *","prompt":"p"}`, classInert, nil, false},
		{"CronCreate", `{"cron":"0 9 * * *","prompt":"p","durable":true}`, classEdit, []string{"/w/.claude/scheduled_tasks.json"}, false},
		{"CronDelete", `{"id":"1"}`, classInert, nil, false},
		{"TaskStop", `{"task_id":"1"}`, classInert, nil, false},
		{"SendMessage", `{"to":"main","message":"m"}`, classInert, nil, false},
		{"ExitWorktree", `{"action":"keep"}`, classInert, nil, false},
		{"EnterWorktree", `{"name":"w"}`, classUnknown, nil, true},
		{"Workflow", `{"script":"x"}`, classUnknown, nil, true},
		{"Grep", `{"pattern":"x"}`, classRead, []string{"/w"}, false},
	} {
		n, err := classify(hookwire.Event{Agent: hookwire.Claude, Tool: c.tool, Cwd: "/w", Input: json.RawMessage(c.input)}, nil)
		if (err != nil) != c.failed || n.cls != c.want || !slices.Equal(n.paths, c.paths) {
			t.Errorf("%s %s: class %d, paths %q, err %v; want class %d, %q, refused %v", c.tool, c.input, n.cls, n.paths, err, c.want, c.paths, c.failed)
		}
	}
	n, _ := classify(hookwire.Event{Agent: hookwire.Claude, Tool: "Monitor", Cwd: "/w", Input: json.RawMessage(`{"command":"x","timeout_ms":30000}`)}, nil)
	if !n.rewritable || n.timeout.Seconds() != 30 {
		t.Errorf("Monitor: rewritable %v, timeout %s", n.rewritable, n.timeout)
	}
}

// Codex's view_image hands the model a file, as a read does.
func TestClassifyCodexTools(t *testing.T) {
	n, err := classify(hookwire.Event{Agent: hookwire.Codex, Tool: "view_image", Cwd: "/w", Input: json.RawMessage(`{"path":"shots/a.png"}`)}, nil)
	if err != nil || n.cls != classRead || !slices.Equal(n.paths, []string{"/w/shots/a.png"}) || n.pathKey != "path" {
		t.Errorf("view_image: %+v %v", n, err)
	}
}

// A shell call that names where it runs is run there.
func TestShellDir(t *testing.T) {
	for _, c := range []struct {
		agent    hookwire.Agent
		tool, in string
		want     string
	}{
		{hookwire.Gemini, "run_shell_command", `{"command":"ls","dir_path":"svc"}`, "/w/svc"},
		{hookwire.Gemini, "run_shell_command", `{"command":"ls","directory":"/w/old"}`, "/w/old"},
		{hookwire.Gemini, "run_shell_command", `{"command":"ls"}`, ""},
		{hookwire.Codex, "exec_command", `{"cmd":"ls","workdir":"/w/svc"}`, "/w/svc"},
		{hookwire.Claude, "Bash", `{"command":"ls"}`, ""},
	} {
		n, err := classify(hookwire.Event{Agent: c.agent, Tool: c.tool, Cwd: "/w", Input: json.RawMessage(c.in)}, nil)
		if err != nil || n.dir != c.want {
			t.Errorf("%s %s: dir %q (%v), want %q", c.tool, c.in, n.dir, err, c.want)
		}
	}
}
