package hookserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/transport/hookwire"
)

// class is what an agent's own tool does to the machine.
type class int

const (
	classUnknown   class = iota
	classGatehouse       // one of Gatehouse's own MCP tools: the MCP call is gated
	classInert           // no effect on the machine (plans, to-do lists, sub-agents)
	classShell           // runs a shell command
	classEdit            // writes files
	classRead            // reads files
	classFetch           // fetches a URL from the agent's process
	classExternal        // another MCP server's tool, which runs outside Gatehouse
)

// native is an agent tool call as Gatehouse judges it.
type native struct {
	cls class
	// Shell: the command, the input member holding it, and whether the
	// agent lets the hook rewrite it (Cursor does not).
	command    string
	commandKey string
	rewritable bool
	timeout    time.Duration
	// dir is where the shell call says the command runs (Codex's
	// workdir, Gemini CLI's dir_path), absolute; "" for the agent's cwd.
	dir string
	// Edit and read: the paths it touches, absolute; pathKey is the input
	// member naming a single file read, which the hook may point at a
	// redacted copy.
	paths   []string
	pathKey string
	// Search: the input member naming where it searches, and the member
	// taking the globs it searches by (Claude Code's Grep) or leaves out
	// (Gemini CLI's read_many_files), which the hook may add to; a
	// search with neither is refused where the sandbox hides a file
	// (searchAnswer).
	searchPathKey, globKey, excludeKey string
	// searchIgnored: the search reads what git ignores too.
	searchIgnored bool
	// Fetch: the URL.
	url string
	// External: server/tool.
	name string
}

// gatehouseServer is the MCP server name `gatehouse install` registers.
const gatehouseServer = "gatehouse"

// inertTools have no effect on the machine the sandbox would have to bound.
var inertTools = map[hookwire.Agent]map[string]bool{
	// Claude Code's sub-agents and their messages, tasks and their output
	// (commands that ran through the hook), plans, questions, skills, the
	// session's own schedule (CronCreate that persists is an edit), and
	// leaving a worktree it never entered (EnterWorktree is refused).
	hookwire.Claude: set("Task", "Agent", "TodoWrite", "ExitPlanMode", "EnterPlanMode", "AskUserQuestion",
		"WebSearch", "BashOutput", "KillShell", "KillBash", "Skill", "SlashCommand", "ListMcpResourcesTool", "ReadMcpResourceTool",
		"TaskCreate", "TaskUpdate", "TaskList", "TaskGet", "TaskOutput", "TaskStop", "ListAgents", "SendMessage",
		"ReportFindings", "ScheduleWakeup", "CronDelete", "CronList", "ExitWorktree"),
	// Codex's plans, questions, goals, sub-agents and MCP resources.
	hookwire.Codex: set("update_plan", "write_stdin", "request_user_input", "web_search",
		"list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource", "get_goal", "create_goal", "update_goal",
		"multi_agent_v1__spawn_agent", "multi_agent_v1__send_input", "multi_agent_v1__wait_agent",
		"multi_agent_v1__resume_agent", "multi_agent_v1__close_agent"),
	// Gemini CLI's plans, questions, sub-agents, skills, its own docs and
	// task tracker (in its own state directory), the logs of background
	// commands (which ran through the hook), and MCP resources (read from
	// the server, as Claude Code's are).
	hookwire.Gemini: set("google_web_search", "write_todos", "ask_user", "enter_plan_mode", "exit_plan_mode",
		"invoke_agent", "complete_task", "update_topic", "activate_skill", "get_internal_docs",
		"list_background_processes", "read_background_output",
		"list_mcp_resources", "read_mcp_resource", "tracker_add_dependency", "tracker_create_task",
		"tracker_get_task", "tracker_list_tasks", "tracker_update_task", "tracker_visualize"),
}

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// classify works out what an agent's tool call does. Unknown tools are
// classUnknown, which the caller blocks.
func classify(ev hookwire.Event, gatehouseTools map[string]bool) (native, error) {
	in := map[string]json.RawMessage{}
	if len(ev.Input) > 0 && string(ev.Input) != "null" {
		if err := json.Unmarshal(ev.Input, &in); err != nil {
			return native{}, fmt.Errorf("%s's input is not a JSON object", ev.Tool)
		}
	}
	if n, ok := classifyMCP(ev, gatehouseTools); ok {
		return n, nil
	}
	if inertTools[ev.Agent][ev.Tool] {
		return native{cls: classInert}, nil
	}
	switch ev.Agent {
	case hookwire.Claude, hookwire.Codex:
		return classifyClaude(ev, in)
	case hookwire.Gemini:
		return classifyGemini(ev, in)
	case hookwire.Cursor:
		return classifyCursor(ev, in)
	}
	return native{}, nil
}

// classifyMCP recognises MCP tools by the names each agent gives them.
func classifyMCP(ev hookwire.Event, gatehouseTools map[string]bool) (native, bool) {
	var server, tool string
	switch ev.Agent {
	case hookwire.Claude, hookwire.Codex:
		rest, ok := strings.CutPrefix(ev.Tool, "mcp__")
		if !ok {
			return native{}, false
		}
		server, tool, _ = strings.Cut(rest, "__")
	case hookwire.Gemini:
		rest, ok := strings.CutPrefix(ev.Tool, "mcp_")
		if !ok {
			return native{}, false
		}
		server, tool, _ = strings.Cut(rest, "_")
	case hookwire.Cursor:
		if ev.Name != "beforeMCPExecution" {
			return native{}, false
		}
		tool = ev.Tool
		if gatehouseTools[tool] {
			server = gatehouseServer
		}
	default:
		return native{}, false
	}
	if server == gatehouseServer && gatehouseTools[tool] {
		return native{cls: classGatehouse}, true
	}
	return native{cls: classExternal, name: server + "/" + tool}, true
}

func classifyClaude(ev hookwire.Event, in map[string]json.RawMessage) (native, error) {
	switch ev.Tool {
	case "Bash":
		return shellFrom(in, "command", ev.Agent == hookwire.Claude || ev.Agent == hookwire.Codex)
	case "exec_command":
		n, err := shellFrom(in, "cmd", true)
		if dir, _ := member(in, "workdir"); dir != "" {
			n.dir = abs(ev.Cwd, dir)
		}
		return n, err
	case "Monitor":
		// A script whose lines are events: it runs in the sandbox like a
		// Bash command, and `gatehouse exec` passes its lines on as they come.
		n, err := shellFrom(in, "command", true)
		if ms, e := number(in, "timeout_ms"); e == nil && ms > 0 {
			n.timeout = time.Duration(ms) * time.Millisecond
		}
		return n, err
	case "CronCreate":
		// A durable job is a prompt the next session runs, kept in the
		// project's .claude; one for this session only touches nothing.
		if string(in["durable"]) != "true" {
			return native{cls: classInert}, nil
		}
		return native{cls: classEdit, paths: []string{filepath.Join(ev.Cwd, ".claude", "scheduled_tasks.json")}}, nil
	case "Workflow":
		return native{}, errors.New("a workflow script runs in Claude Code's own process, where Gatehouse cannot see what it does; ask for the same work with sub-agents (Agent), whose tools go through Gatehouse")
	case "EnterWorktree":
		return native{}, errors.New("it would make a git worktree from Claude Code's own process, outside Gatehouse's sandbox and checkpoints, and a command in the sandbox cannot write beside the project either; ask the person to make one in their own shell (git worktree add ../NAME -b NAME) and start Claude Code there")
	case "Read", "NotebookRead":
		return pathsFrom(classRead, ev.Cwd, in, "file_path", "notebook_path")
	case "view_image":
		// Codex's: the image goes to the model as a read's text would.
		return pathsFrom(classRead, ev.Cwd, in, "path")
	case "Grep":
		n, err := pathsOrCwd(classRead, ev.Cwd, in, "path")
		n.searchPathKey, n.globKey = "path", "glob"
		return n, err
	case "Glob", "LS":
		return pathsOrCwd(classRead, ev.Cwd, in, "path")
	case "Write", "Edit", "MultiEdit":
		return pathsFrom(classEdit, ev.Cwd, in, "file_path")
	case "NotebookEdit":
		return pathsFrom(classEdit, ev.Cwd, in, "notebook_path")
	case "apply_patch":
		return patchPaths(ev.Cwd, in)
	case "WebFetch":
		u, err := member(in, "url")
		return native{cls: classFetch, url: u}, err
	}
	return native{}, nil
}

func classifyGemini(ev hookwire.Event, in map[string]json.RawMessage) (native, error) {
	switch ev.Tool {
	case "run_shell_command":
		n, err := shellFrom(in, "command", true)
		// dir_path since 0.61, directory before.
		for _, k := range []string{"dir_path", "directory"} {
			if dir, _ := member(in, k); dir != "" && n.dir == "" {
				n.dir = abs(ev.Cwd, dir)
			}
		}
		return n, err
	case "read_file":
		return pathsFrom(classRead, ev.Cwd, in, "absolute_path", "file_path")
	case "read_many_files":
		// Globs or paths: "include" since 0.61, "paths" before.
		key := "include"
		if _, ok := in[key]; !ok {
			key = "paths"
		}
		n, err := listFrom(classRead, ev.Cwd, in, key)
		n.excludeKey = "exclude"
		return n, err
	case "grep_search", "search_file_content":
		n, err := pathsOrCwd(classRead, ev.Cwd, in, "dir_path", "path")
		n.searchPathKey, n.searchIgnored = "dir_path", string(in["no_ignore"]) == "true"
		if _, ok := in["path"]; ok {
			n.searchPathKey = "path"
		}
		return n, err
	case "list_directory", "glob":
		return pathsOrCwd(classRead, ev.Cwd, in, "path", "dir_path")
	case "write_file", "replace":
		return pathsFrom(classEdit, ev.Cwd, in, "file_path")
	case "save_memory":
		home, _ := os.UserHomeDir()
		return native{cls: classEdit, paths: []string{filepath.Join(home, ".gemini", "GEMINI.md")}}, nil
	case "web_fetch":
		p, err := member(in, "prompt")
		return native{cls: classFetch, url: firstURL(p)}, err
	}
	return native{}, nil
}

func classifyCursor(ev hookwire.Event, in map[string]json.RawMessage) (native, error) {
	switch ev.Tool {
	case hookwire.CursorShell:
		return shellFrom(in, "command", false)
	case hookwire.CursorRead:
		return pathsFrom(classRead, ev.Cwd, in, "file_path")
	case hookwire.CursorEdit:
		return pathsFrom(classEdit, ev.Cwd, in, "file_path")
	}
	return native{}, nil
}

// shellFrom reads a shell command from key: a string, or (older Codex) an
// argv array, which is quoted into one command.
func shellFrom(in map[string]json.RawMessage, key string, rewritable bool) (native, error) {
	n := native{cls: classShell, commandKey: key, rewritable: rewritable}
	raw, ok := in[key]
	if !ok {
		return n, fmt.Errorf("the shell call has no %s", key)
	}
	if err := json.Unmarshal(raw, &n.command); err != nil {
		var argv []string
		if json.Unmarshal(raw, &argv) != nil || len(argv) == 0 {
			return n, fmt.Errorf("the shell call's %s is neither a string nor a list of strings", key)
		}
		quoted := make([]string, len(argv))
		for i, a := range argv {
			quoted[i] = shellQuote(a)
		}
		n.command = strings.Join(quoted, " ")
	}
	if strings.TrimSpace(n.command) == "" {
		return n, fmt.Errorf("the shell command is empty")
	}
	if ms, err := number(in, "timeout"); err == nil && ms > 0 {
		n.timeout = time.Duration(ms) * time.Millisecond
	}
	return n, nil
}

// pathsFrom reads the first of keys that is present.
func pathsFrom(cls class, cwd string, in map[string]json.RawMessage, keys ...string) (native, error) {
	for _, k := range keys {
		if _, ok := in[k]; !ok {
			continue
		}
		p, err := member(in, k)
		if err != nil {
			return native{}, err
		}
		if p == "" {
			return native{}, fmt.Errorf("%s is empty", k)
		}
		return native{cls: cls, paths: []string{abs(cwd, p)}, pathKey: k}, nil
	}
	return native{}, fmt.Errorf("the call names no file (%s)", strings.Join(keys, " or "))
}

// pathsOrCwd is pathsFrom defaulting to the working directory.
func pathsOrCwd(cls class, cwd string, in map[string]json.RawMessage, keys ...string) (native, error) {
	for _, k := range keys {
		if p, err := member(in, k); err != nil {
			return native{}, err
		} else if p != "" {
			return native{cls: cls, paths: []string{abs(cwd, p)}}, nil
		}
	}
	return native{cls: cls, paths: []string{abs(cwd, ".")}}, nil
}

func listFrom(cls class, cwd string, in map[string]json.RawMessage, key string) (native, error) {
	var list []string
	if raw, ok := in[key]; ok {
		if err := json.Unmarshal(raw, &list); err != nil {
			return native{}, fmt.Errorf("%s is not a list of paths", key)
		}
	}
	if len(list) == 0 {
		return native{}, fmt.Errorf("the call names no file (%s)", key)
	}
	n := native{cls: cls}
	for _, p := range list {
		n.paths = append(n.paths, abs(cwd, p))
	}
	return n, nil
}

// patchFile matches the file headers of Codex's apply_patch format.
var patchFile = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^\*\*\* (?:Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$`)
})

func patchPaths(cwd string, in map[string]json.RawMessage) (native, error) {
	var patch string
	for _, k := range []string{"input", "patch"} {
		if p, err := member(in, k); err == nil && p != "" {
			patch = p
			break
		}
	}
	n := native{cls: classEdit}
	for _, m := range patchFile().FindAllStringSubmatch(patch, -1) {
		p := strings.TrimSpace(m[1] + m[2])
		n.paths = append(n.paths, abs(cwd, p))
	}
	if len(n.paths) == 0 {
		return native{}, fmt.Errorf("the patch names no file")
	}
	return n, nil
}

var urlPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`https?://[^\s"'<>]+`) })

func firstURL(s string) string { return urlPattern().FindString(s) }

func member(in map[string]json.RawMessage, key string) (string, error) {
	raw, ok := in[key]
	if !ok || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("%s is not a string", key)
	}
	return s, nil
}

func number(in map[string]json.RawMessage, key string) (float64, error) {
	raw, ok := in[key]
	if !ok {
		return 0, nil
	}
	var f float64
	err := json.Unmarshal(raw, &f)
	return f, err
}

// abs makes p absolute against the agent's working directory.
func abs(cwd, p string) string {
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	if !filepath.IsAbs(p) && cwd != "" {
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p)
}
