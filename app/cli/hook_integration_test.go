//go:build integration

package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// hookRun runs `gatehouse hook AGENT` with stdin and returns its stdout,
// stderr and exit code.
func hookRun(t *testing.T, bin, data, agent string, stdin []byte, extra ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	return clitest.RunInput(ctx, t, bin, nil, stdin, append([]string{"--data", data, "hook", agent}, extra...)...)
}

func preToolUse(session, tool string, input any, cwd string) []byte {
	b, _ := json.Marshal(map[string]any{
		"session_id": session, "transcript_path": "/dev/null", "cwd": cwd, "permission_mode": "default",
		"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input, "tool_use_id": "toolu_" + tool,
	})
	return b
}

// claudeDecision reads a Claude/Codex PreToolUse answer.
func claudeDecision(t *testing.T, out string) (decision, reason string, input map[string]any) {
	t.Helper()
	var a struct {
		H struct {
			Decision string         `json:"permissionDecision"`
			Reason   string         `json:"permissionDecisionReason"`
			Input    map[string]any `json:"updatedInput"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatalf("hook output %q: %v", out, err)
	}
	return a.H.Decision, a.H.Reason, a.H.Input
}

// TestHookFailsClosed: whatever goes wrong, the agent's call is blocked
// with one sentence, in that agent's own format.
func TestHookFailsClosed(t *testing.T) {
	bin := clitest.Binary(t)
	noDaemon := t.TempDir()
	bash := preToolUse("s1", "Bash", map[string]any{"command": "rm -rf /"}, "/tmp")
	gemini, _ := json.Marshal(map[string]any{"session_id": "g1", "hook_event_name": "BeforeTool", "tool_name": "run_shell_command", "tool_input": map[string]any{"command": "ls"}, "cwd": "/tmp"})
	cases := []struct {
		name, agent string
		stdin       []byte
		want        string // in stdout
	}{
		{"daemon down, claude", "claude", bash, `"permissionDecision":"deny"`},
		{"daemon down, codex", "codex", bash, `"permissionDecision":"deny"`},
		{"daemon down, gemini", "gemini", gemini, `"decision":"deny"`},
		{"malformed stdin", "claude", []byte(`{"hook_event_name": "PreToolUse", "tool_name": `), `"permissionDecision":"deny"`},
		{"not an object", "gemini", []byte(`[1,2,3]`), `"decision":"deny"`},
		{"huge stdin", "claude", bytes.Repeat([]byte("x"), 11<<20), `"permissionDecision":"deny"`},
		{"no tool named", "claude", []byte(`{"hook_event_name":"PreToolUse","session_id":"s"}`), `"permissionDecision":"deny"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := hookRun(t, bin, noDaemon, tc.agent, tc.stdin)
			if code != 2 || !strings.Contains(out, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || stderr == "" {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, out, stderr)
			}
		})
	}
	t.Run("unknown agent", func(t *testing.T) {
		_, stderr, code := hookRun(t, bin, noDaemon, "vim", bash)
		if code == 0 || !strings.Contains(stderr, "claude, codex, gemini, cursor") {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
	})
	t.Run("gatehouse's own MCP tool passes", func(t *testing.T) {
		out, _, code := hookRun(t, bin, noDaemon, "claude", preToolUse("s1", "mcp__gatehouse__run_command", map[string]any{"argv": []string{"ls"}}, "/tmp"))
		if d, _, _ := claudeDecision(t, out); code != 0 || d != "allow" {
			t.Fatalf("exit %d, %q", code, out)
		}
	})
	t.Run("command longer than a command line holds", func(t *testing.T) {
		d := clitest.Start(t)
		long := "echo " + strings.Repeat("a", 200<<10) + " > notes.txt"
		out, _, _ := hookRun(t, bin, d.Data, "claude", preToolUse("s3", "Bash", map[string]any{"command": long}, d.Workspace))
		if dec, reason, _ := claudeDecision(t, out); dec != "deny" || !strings.Contains(reason, "more than the 131072 one command line can hold") || len(reason) > 1024 {
			t.Fatalf("decision %q, reason %.300q", dec, reason)
		}
	})
	t.Run("daemon slower than the hook's timeout", func(t *testing.T) {
		d := clitest.StartAsk(t)
		// An interpreter asks, and nobody answers.
		out, stderr, code := hookRun(t, bin, d.Data, "claude", preToolUse("s2", "Bash", map[string]any{"command": "sh -c 'echo $0'"}, d.Workspace), "--timeout", "2s")
		if dec, _, _ := claudeDecision(t, out); code != 2 || dec != "deny" || !strings.Contains(stderr, "did not answer within 2s") {
			t.Fatalf("exit %d, %q, %q", code, out, stderr)
		}
	})
}

// TestHookShellRunsInTheSandbox: an agent's own shell command is cleared
// by the hook, rewritten, and run by `gatehouse exec` inside the session's
// sandbox; the person can deny it, it cannot read the real HOME, and
// rollback undoes what it changed.
func TestHookShellRunsInTheSandbox(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	canary := filepath.Join(home, ".gatehouse-test-canary-"+filepath.Base(t.TempDir()))
	if err := os.WriteFile(canary, []byte("CANARY-7731"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(canary) })
	// Ask mode, so the shell command raises a card to deny and allow.
	d := clitest.StartAsk(t)
	os.WriteFile(filepath.Join(d.Workspace, "a.txt"), []byte("hello\n"), 0o644)

	// A plain command runs without a card.
	out, _, code := hookRun(t, d.Bin, d.Data, "claude", preToolUse("run-1", "Bash", map[string]any{"command": "cat a.txt", "description": "show", "timeout": 60000}, d.Workspace))
	dec, _, input := claudeDecision(t, out)
	if code != 0 || dec != "allow" || input["description"] != "show" || input["timeout"] != float64(60000) {
		t.Fatalf("exit %d: %s", code, out)
	}
	line, _ := input["command"].(string)
	if !strings.Contains(line, " exec --agent 'claude' --ticket ") {
		t.Fatalf("not rewritten: %q", line)
	}
	got, errOut, code := runLine(t, d, line)
	if code != 0 || got != "hello\n" {
		t.Fatalf("rewritten command: exit %d %q %q", code, got, errOut)
	}
	// The ticket is spent.
	if _, _, code := runLine(t, d, line); code != 126 {
		t.Fatalf("a ticket ran twice (exit %d)", code)
	}

	// A shell that reaches for the real HOME asks; deny blocks it.
	cmd := "cat " + canary + "; echo made > made.txt"
	denied := make(chan string, 1)
	go func() {
		out, _, _ := hookRun(t, d.Bin, d.Data, "claude", preToolUse("run-1", "Bash", map[string]any{"command": cmd}, d.Workspace))
		denied <- out
	}()
	a := d.WaitApproval(clitest.CardWait)
	d.Decide(a.ID, "deny", "once", "not now")
	if dec, reason, _ := claudeDecision(t, <-denied); dec != "deny" || !strings.Contains(reason, "not now") {
		t.Fatalf("denied call: %s %s", dec, reason)
	}
	// Allowed, it runs in the sandbox: the canary is not there, the file is made.
	allowed := make(chan string, 1)
	go func() {
		out, _, _ := hookRun(t, d.Bin, d.Data, "claude", preToolUse("run-1", "Bash", map[string]any{"command": cmd}, d.Workspace))
		allowed <- out
	}()
	a = d.WaitApproval(clitest.CardWait)
	d.Decide(a.ID, "allow", "once", "")
	_, _, input = claudeDecision(t, <-allowed)
	got, errOut, _ = runLine(t, d, input["command"].(string))
	if strings.Contains(got+errOut, "CANARY-7731") {
		t.Fatalf("the sandboxed command read the real HOME: %q %q", got, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(d.Workspace, "made.txt")); err != nil || string(b) != "made\n" {
		t.Fatalf("made.txt: %q %v", b, err)
	}
	// Its session is the run's, and rollback undoes the change.
	var sessions []struct {
		ID  string `json:"id"`
		Run string `json:"run"`
	}
	o, _, _ := d.CLI(t.Context(), "sessions", "--json")
	json.Unmarshal([]byte(o), &sessions)
	if len(sessions) != 1 || sessions[0].Run != "claude:run-1" {
		t.Fatalf("sessions: %s", o)
	}
	if o, e, code := d.CLI(t.Context(), "rollback", sessions[0].ID, "--call", a.CallID); code != 0 {
		t.Fatalf("rollback: %s %s", o, e)
	}
	if _, err := os.Stat(filepath.Join(d.Workspace, "made.txt")); err == nil {
		t.Fatal("rollback left made.txt")
	}
}

// runLine runs a rewritten command line as the agent's shell would.
func runLine(t *testing.T, d *clitest.Daemon, line string) (string, string, int) {
	t.Helper()
	cmd := exec.Command("bash", "-c", line)
	cmd.Dir = d.Workspace
	cmd.Env = d.Env()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), errb.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), 0
}

// TestHookNativeEditIsCheckpointed: an edit by the agent's own tool is
// checkpointed before and recorded after, so the session's diff shows it.
func TestHookNativeEditIsCheckpointed(t *testing.T) {
	d := clitest.Start(t, "--mode", "accept-edits")
	f := filepath.Join(d.Workspace, "a.txt")
	os.WriteFile(f, []byte("before\n"), 0o644)
	edit := map[string]any{"file_path": f, "old_string": "before", "new_string": "after"}
	out, _, code := hookRun(t, d.Bin, d.Data, "claude", preToolUse("run-2", "Edit", edit, d.Workspace))
	if dec, _, _ := claudeDecision(t, out); code != 0 || dec != "allow" {
		t.Fatalf("edit: exit %d %s", code, out)
	}
	os.WriteFile(f, []byte("after\n"), 0o644) // the agent's own tool edits
	post, _ := json.Marshal(map[string]any{"session_id": "run-2", "cwd": d.Workspace, "hook_event_name": "PostToolUse",
		"tool_name": "Edit", "tool_input": edit, "tool_use_id": "toolu_Edit", "tool_response": map[string]any{"success": true}})
	if out, _, code := hookRun(t, d.Bin, d.Data, "claude", post); code != 0 {
		t.Fatalf("post: %d %s", code, out)
	}
	ev := d.Events("kind=tool.result")
	if len(ev) != 1 {
		t.Fatalf("tool.result rows: %v", ev)
	}
	sess, call := ev[0]["session"].(string), ev[0]["call_id"].(string)
	_, body := d.Request("GET", "/api/v1/sessions/"+sess+"/calls/"+call+"/diff", nil, d.Control())
	if !strings.Contains(body, "-before") || !strings.Contains(body, "+after") {
		t.Fatalf("diff: %s", body)
	}
}

// TestExecTicketOnlyForItsAgent: `gatehouse exec` may name any agent, and
// so present any installed agent's token; only the token the hook cleared
// the command with redeems the ticket, and another one runs nothing.
func TestExecTicketOnlyForItsAgent(t *testing.T) {
	isolatedHome(t)
	d := clitest.Start(t)
	for _, a := range []string{"claude", "gemini"} {
		if out, errOut, code := clitest.Run(t.Context(), t, d.Bin, d.Env(), "--data", d.Data, "install", a); code != 0 {
			t.Fatalf("install %s: %d\n%s%s", a, code, out, errOut)
		}
	}
	cleared := func(file string) string {
		t.Helper()
		out, _, code := hookRun(t, d.Bin, d.Data, "claude", preToolUse("run-1", "Bash", map[string]any{"command": "touch " + file}, d.Workspace))
		dec, _, input := claudeDecision(t, out)
		line, _ := input["command"].(string)
		if code != 0 || dec != "allow" || !strings.Contains(line, " exec --agent 'claude' --ticket ") {
			t.Fatalf("hook: exit %d %s", code, out)
		}
		return line
	}
	line := strings.Replace(cleared("stolen"), "--agent 'claude'", "--agent 'gemini'", 1)
	if _, errOut, code := runLine(t, d, line); code != 126 || !strings.Contains(errOut, "belongs to another agent") {
		t.Fatalf("another agent's token redeemed the ticket: exit %d %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(d.Workspace, "stolen")); !os.IsNotExist(err) {
		t.Fatalf("the refused command ran: %v", err)
	}
	if _, errOut, code := runLine(t, d, cleared("redeemed")); code != 0 {
		t.Fatalf("the hook's own agent: exit %d %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(d.Workspace, "redeemed")); err != nil {
		t.Fatalf("the cleared command did not run: %v", err)
	}
}

// TestNativeReadOfAKeyIsRedacted: an agent's own Read of a private key,
// even after the person allows it, is pointed at a copy with the key's
// body redacted; a file with nothing to redact is read as it is.
func TestNativeReadOfAKeyIsRedacted(t *testing.T) {
	d := clitest.Start(t)
	const body = "MIIEowIBAAKCAQEA1b2c3d4e5f6Zm9vYmFyYmF6cXV4"
	key := filepath.Join(t.TempDir(), "id_rsa")
	if err := os.WriteFile(key, []byte("-----BEGIN RSA PRIVATE KEY-----\n"+body+"\n-----END RSA PRIVATE KEY-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(d.Workspace, "notes.txt")
	if err := os.WriteFile(plain, []byte("nothing secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func(run, path string) (string, map[string]any) {
		out, _, _ := hookRun(t, d.Bin, d.Data, "claude", preToolUse(run, "Read", map[string]any{"file_path": path}, d.Workspace))
		dec, reason, input := claudeDecision(t, out)
		if dec != "allow" {
			t.Fatalf("read of %s: %s %s", path, dec, reason)
		}
		return reason, input
	}
	// Outside the workspace: a card, which says what the model will see.
	done := make(chan map[string]any, 1)
	go func() { _, in := read("run-key", key); done <- in }()
	card := d.WaitApproval(clitest.CardWait)
	if !strings.Contains(strings.Join(card.Findings, " "), "private keys and tokens redacted") {
		t.Errorf("the card does not say what the model will see: %+v", card.Findings)
	}
	d.Decide(card.ID, "allow", "once", "")
	var input map[string]any
	select {
	case input = <-done:
	case <-time.After(time.Minute):
		t.Fatal("no answer to the read")
	}
	copyPath, _ := input["file_path"].(string)
	if copyPath == "" || copyPath == key {
		t.Fatalf("the read was not pointed at a redacted copy: %v", input)
	}
	b, err := os.ReadFile(copyPath)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), body) || !strings.Contains(string(b), "REDACTED") {
		t.Fatalf("the copy the model reads holds:\n%s", b)
	}
	// Nothing to redact: the agent reads the file itself.
	if _, in := read("run-key", plain); in != nil && in["file_path"] != nil && in["file_path"] != plain {
		t.Fatalf("a plain file was redirected: %v", in)
	}
}

// TestNativeWriteKeepsSecrets: the model saw a file's token as a marker;
// its agent's own Write of the file with the marker in place of the
// token, or an Edit whose old text holds the marker, is refused with what
// to do instead, and an Edit around the token goes ahead.
func TestNativeWriteKeepsSecrets(t *testing.T) {
	d := clitest.Start(t)
	file := filepath.Join(d.Workspace, "config.yaml")
	if err := os.WriteFile(file, []byte("name: app\ntoken: ghp_abcdefghijklmnopqrstuvwxyz0123456789\nport: 8080\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const marker = "[REDACTED:github_token]"
	tests := []struct {
		name, tool string
		input      map[string]any
		want       string // the decision
	}{
		{"write over the token", "Write", map[string]any{"file_path": file, "content": "name: app\ntoken: " + marker + "\nport: 9090\n"}, "deny"},
		{"edit through the marker", "Edit", map[string]any{"file_path": file, "old_string": "token: " + marker, "new_string": "token: " + marker + "\nextra: 1"}, "deny"},
		{"edit around the token", "Edit", map[string]any{"file_path": file, "old_string": "port: 8080", "new_string": "port: 9090"}, "allow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, _ := hookRun(t, d.Bin, d.Data, "claude", preToolUse("keep-"+tt.tool, tt.tool, tt.input, d.Workspace))
			dec, reason, _ := claudeDecision(t, out)
			if dec != tt.want || dec == "deny" && !strings.Contains(reason, "stands for a secret in "+file) {
				t.Fatalf("decision %q (%s), want %q", dec, reason, tt.want)
			}
		})
	}
	// The refusals are in the audit, with why.
	if out, _, _ := d.CLI(t.Context(), "log", "--json", "--kind", "tool.refused"); strings.Count(out, "stands for a secret in") != 2 {
		t.Errorf("want both refused edits in the audit with their reason, got:\n%s", out)
	}
}
