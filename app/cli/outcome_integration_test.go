//go:build integration

package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// TestKillSwitchStopsAStagedRun: the kill switch pressed while a staged
// command runs (a sleep, which changes nothing) tells the agent the
// person stopped it, and nothing about unreadable changes: the session's
// end leaves a run's layers to the run.
func TestKillSwitchStopsAStagedRun(t *testing.T) {
	d := startEffectDaemon(t)
	ch := asyncRun(t, d, map[string]any{"argv": []string{"sleep", "60"}})
	clitest.WaitFor(t, 60*time.Second, "the sleep to start", func() bool { return len(d.Events("kind=exec.started")) == 1 })
	if out, errOut, code := d.CLI(t.Context(), "kill", "--reason", "test"); code != 0 {
		t.Fatalf("kill: %d %s %s", code, out, errOut)
	}
	r := waitResult(t, ch)
	text := clitest.Text(t, r)
	if !strings.Contains(text, "the person stopped all agents") || strings.Contains(text, "could not read") {
		t.Fatalf("the agent was told:\n%s", text)
	}
	if log := d.Log(); strings.Contains(log, "read staged changes") {
		t.Fatalf("the daemon logged an error for a killed run:\n%s", log)
	}
	if got := lastOutcome(t, d, "run_command"); got["outcome"] != "stopped" {
		t.Errorf("the call's outcome is %v, want stopped", got)
	}
	// The last run out removes the ended session's stage root.
	clitest.WaitFor(t, 30*time.Second, "the stage root to go", func() bool {
		entries, _ := os.ReadDir(filepath.Join(d.Data, "stage"))
		return len(entries) == 0
	})
}

// lastOutcome is the outcome on the latest call of tool: its last row
// that carries one.
func lastOutcome(t *testing.T, d *clitest.Daemon, tool string) map[string]any {
	t.Helper()
	id := callIDOf(t, d, tool)
	var out map[string]any
	for _, e := range d.Events("") {
		if e["call_id"] != id {
			continue
		}
		if p, _ := e["payload"].(map[string]any); p != nil {
			if o, ok := p["outcome"].(map[string]any); ok {
				out = o
			}
		}
	}
	if out == nil {
		t.Fatalf("call %s has no outcome in the audit", id)
	}
	return out
}

// TestExecSaysWhatBecameOfTheChanges: on the native-shell route (the
// hook rewrites the agent's Bash to `gatehouse exec`), a history rewrite
// is held on an effect card. Discarded with a message, exec exits 1 with
// the person's message on stderr, whatever the command printed; applied,
// it exits 0 and says it was applied after approval; where runs cannot be
// staged (Landlock), a refused deletion is rolled back and exits 1 too.
// `gatehouse sessions ID` names each outcome and sums the session up so
// that it adds up.
func TestExecSaysWhatBecameOfTheChanges(t *testing.T) {
	headMoved := func(t *testing.T, ws, before string) bool { return hostGitIn(t, ws, "rev-parse", "HEAD") != before }
	srcGone := func(t *testing.T, ws, _ string) bool { _, err := os.Stat(filepath.Join(ws, "src")); return err != nil }
	cases := []struct {
		name, config, command string
		decision, message     string
		code                  int
		notes                 []string
		label                 string
		landed                func(t *testing.T, ws, before string) bool
		want                  bool
	}{
		{"discarded", "", "git reset --hard HEAD~2", "deny", "keep my history", 1,
			[]string{"the person discarded them: keep my history"}, "discarded by you: keep my history", headMoved, false},
		{"applied after approval", "", "git reset --hard HEAD~2", "allow", "", 0,
			[]string{"The person approved this command's changes, and they are applied."}, "applied after your approval", headMoved, true},
		{"rolled back", "[sandbox]\nbackend = \"landlock\"\n", "rm -rf src", "deny", "not src", 1,
			[]string{"the person discarded them: not src", "Gatehouse rolled them back"}, "rolled back by you: not src", srcGone, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := startEffectDaemonWith(t, tc.config)
			head := hostGitIn(t, d.Workspace, "rev-parse", "HEAD")
			out, _, code := hookRun(t, d.Bin, d.Data, "claude", preToolUse("run-effect", "Bash", map[string]any{"command": tc.command}, d.Workspace))
			dec, _, input := claudeDecision(t, out)
			line, _ := input["command"].(string)
			if code != 0 || dec != "allow" || !strings.Contains(line, " exec ") {
				t.Fatalf("hook: exit %d %s", code, out)
			}
			type ran struct {
				stdout, stderr string
				code           int
			}
			done := make(chan ran, 1)
			go func() {
				o, e, c := runLine(t, d, line)
				done <- ran{o, e, c}
			}()
			a := d.WaitApproval(60 * time.Second)
			if a.Kind != "effect" {
				t.Fatalf("card %+v", a)
			}
			d.Decide(a.ID, tc.decision, "once", tc.message)
			var r ran
			select {
			case r = <-done:
			case <-time.After(60 * time.Second):
				t.Fatal("exec did not end after the decision")
			}
			if r.code != tc.code || !strings.Contains(r.stderr, "gatehouse: ") {
				t.Fatalf("exec: exit %d (want %d)\nstdout %q\nstderr %q", r.code, tc.code, r.stdout, r.stderr)
			}
			for _, n := range tc.notes {
				if !strings.Contains(r.stderr, n) {
					t.Fatalf("exec's stderr does not say %q:\n%s", n, r.stderr)
				}
			}
			if landed := tc.landed(t, d.Workspace, head); landed != tc.want {
				t.Fatalf("the change landed: %v, want %v", landed, tc.want)
			}

			sess := activeSession(t, d)
			shown, errOut, code := d.CLI(t.Context(), "sessions", sess)
			if code != 0 || !strings.Contains(shown, tc.label) || !strings.Contains(shown, "1 call: 1 ") || !strings.Contains(shown, "It asked you first.") {
				t.Fatalf("sessions %s: exit %d\n%s%s", sess, code, shown, errOut)
			}
			js, _, _ := d.CLI(t.Context(), "sessions", sess, "--json")
			var got struct {
				Session struct {
					Calls    int64            `json:"calls"`
					Asked    int64            `json:"asked"`
					Outcomes map[string]int64 `json:"outcomes"`
				} `json:"session"`
				Calls []struct {
					Label string `json:"label"`
				} `json:"calls"`
			}
			if err := json.Unmarshal([]byte(js), &got); err != nil || len(got.Calls) != 1 || got.Calls[0].Label != tc.label {
				t.Fatalf("sessions --json: %v\n%s", err, js)
			}
			var sum int64
			for _, n := range got.Session.Outcomes {
				sum += n
			}
			if got.Session.Calls != 1 || sum != 1 || got.Session.Asked != 1 {
				t.Fatalf("counters do not add up: %+v", got.Session)
			}
		})
	}
}

// TestMCPDiscardCarriesTheMessage: through MCP, a held change the person
// discards comes back as an error whose text and structured part (all
// Claude Code and Codex show their model) both carry the person's message.
func TestMCPDiscardCarriesTheMessage(t *testing.T) {
	d := startEffectDaemon(t)
	ch := asyncRun(t, d, map[string]any{"argv": []string{"git", "reset", "-q", "--hard", "HEAD~2"}})
	a := d.WaitApproval(60 * time.Second)
	d.Decide(a.ID, "deny", "once", "keep my history")
	r := waitResult(t, ch)
	e := effectPart(t, r)
	note, _ := e["note"].(string)
	if !r.IsError || e["outcome"] != "discarded" || e["decided_by"] != "person" || e["message"] != "keep my history" || !strings.Contains(note, "keep my history") {
		t.Fatalf("structured effect %v (error %v)", e, r.IsError)
	}
	if text := clitest.Text(t, r); !strings.Contains(text, "gatehouse: ") || !strings.Contains(text, "keep my history") {
		t.Fatalf("text %q", text)
	}
	if got := lastOutcome(t, d, "run_command"); got["outcome"] != "discarded" || got["by"] != "person" || got["message"] != "keep my history" {
		t.Fatalf("the audit's outcome %v", got)
	}
}

// TestNativeEditOutcome: an edit by the agent's own tool ends as what it
// did: applied when it changed the file, ok when it changed nothing, and
// failed when the agent says its tool failed (Claude Code's
// PostToolUseFailure).
func TestNativeEditOutcome(t *testing.T) {
	d := clitest.Start(t, "--mode", "accept-edits")
	f := filepath.Join(d.Workspace, "a.txt")
	os.WriteFile(f, []byte("before\n"), 0o644)
	cases := []struct {
		name, event, content string
		extra                map[string]any
		want                 string
	}{
		{"changed", "PostToolUse", "after\n", map[string]any{"tool_response": map[string]any{"filePath": f}}, "applied"},
		{"changed nothing", "PostToolUse", "after\n", map[string]any{"tool_response": map[string]any{"filePath": f}}, "ok"},
		{"failed", "PostToolUseFailure", "after\n", map[string]any{"error": "String to replace not found in file."}, "failed"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run, use := "run-edit", "toolu_edit_"+string(rune('a'+i))
			edit := map[string]any{"file_path": f, "old_string": "before", "new_string": "after"}
			pre, _ := json.Marshal(map[string]any{"session_id": run, "cwd": d.Workspace, "hook_event_name": "PreToolUse",
				"tool_name": "Edit", "tool_input": edit, "tool_use_id": use})
			out, _, code := hookRun(t, d.Bin, d.Data, "claude", pre)
			if dec, _, _ := claudeDecision(t, out); code != 0 || dec != "allow" {
				t.Fatalf("pre: exit %d %s", code, out)
			}
			os.WriteFile(f, []byte(tc.content), 0o644) // the agent's own tool
			post := map[string]any{"session_id": run, "cwd": d.Workspace, "hook_event_name": tc.event,
				"tool_name": "Edit", "tool_input": edit, "tool_use_id": use}
			for k, v := range tc.extra {
				post[k] = v
			}
			body, _ := json.Marshal(post)
			if out, _, code := hookRun(t, d.Bin, d.Data, "claude", body); code != 0 {
				t.Fatalf("post: %d %s", code, out)
			}
			if got := lastOutcome(t, d, "write_file"); got["outcome"] != tc.want {
				t.Fatalf("outcome %v, want %s", got, tc.want)
			}
		})
	}
}
