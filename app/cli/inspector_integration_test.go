//go:build integration

package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
	"github.com/gatehouse-dev/gatehouse/app/cli/clitest/node"
)

// inspector drives the real MCP Inspector CLI (npm
// @modelcontextprotocol/inspector, pinned in clitest/node) against a real
// daemon, over Streamable HTTP with the agent token in a header.
type inspector struct {
	t    *testing.T
	env  *node.Env
	d    *clitest.Daemon
	home string
}

func newInspector(t *testing.T, d *clitest.Daemon) *inspector {
	return &inspector{t: t, env: node.Install(t), d: d, home: t.TempDir()}
}

func (in *inspector) args(method string, extra ...string) []string {
	return append([]string{"--cli", "http://" + in.d.Addr + "/mcp",
		"--transport", "http",
		"--header", "Authorization: Bearer " + in.d.Token("agent"),
		"--format", "json",
		"--method", method}, extra...)
}

// inspectorCall is the CLI's JSON output for one tools/call.
type inspectorCall struct {
	raw    node.Result
	Result struct {
		Meta    map[string]any `json:"_meta"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		Structured map[string]any `json:"structuredContent"`
		IsError    bool           `json:"isError"`
	} `json:"result"`
}

func (c inspectorCall) text() string {
	var parts []string
	for _, p := range c.Result.Content {
		if p.Type == "text" {
			parts = append(parts, p.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func (c inspectorCall) callID() string {
	id, _ := c.Result.Meta["gatehouse/call_id"].(string)
	return id
}

func (in *inspector) callArgs(tool string, args any) []string {
	b, err := json.Marshal(args)
	if err != nil {
		in.t.Fatal(err)
	}
	return in.args("tools/call", "--tool-name", tool, "--tool-args-json", string(b))
}

func parseCall(r node.Result) (inspectorCall, error) {
	c := inspectorCall{raw: r}
	if err := json.Unmarshal([]byte(r.Stdout), &c); err != nil {
		return c, fmt.Errorf("inspector output is not JSON: %v\n%s", err, r)
	}
	if c.callID() == "" {
		return c, fmt.Errorf("tool result carries no gatehouse/call_id:\n%s", r)
	}
	return c, nil
}

// call runs one tools/call to completion.
func (in *inspector) call(tool string, args any) inspectorCall {
	in.t.Helper()
	ctx, cancel := context.WithTimeout(in.t.Context(), 2*time.Minute)
	defer cancel()
	r := in.env.Run(ctx, in.t, in.home, "inspector", in.callArgs(tool, args)...)
	c, err := parseCall(r)
	if err != nil {
		in.t.Fatalf("%s: %v", tool, err)
	}
	return c
}

type asyncCall struct {
	c   inspectorCall
	err error
}

// start runs one tools/call in the background; the result arrives on the
// channel.
func (in *inspector) start(tool string, args any) <-chan asyncCall {
	ch := make(chan asyncCall, 1)
	argv := in.callArgs(tool, args)
	go func() {
		ctx, cancel := context.WithTimeout(in.t.Context(), 2*time.Minute)
		defer cancel()
		r, err := in.env.RunAsync(ctx, in.home, "inspector", argv...)
		if err != nil {
			ch <- asyncCall{inspectorCall{raw: r}, fmt.Errorf("%v\n%s", err, r)}
			return
		}
		c, err := parseCall(r)
		ch <- asyncCall{c, err}
	}()
	return ch
}

// awaitApproval waits until the daemon holds an approval for the call the
// inspector is making, failing early (with its output) if the inspector
// exits first.
func awaitApproval(t *testing.T, d *clitest.Daemon, pending <-chan asyncCall) (clitest.Approval, <-chan asyncCall) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		p := d.Pending()
		if len(p) > 1 {
			t.Fatalf("expected one pending approval, have %d: %+v", len(p), p)
		}
		if len(p) == 1 {
			return p[0], pending
		}
		select {
		case r := <-pending:
			t.Fatalf("inspector finished before any approval was requested: err=%v\n%s", r.err, r.c.raw)
		case <-time.After(25 * time.Millisecond):
		}
	}
	t.Fatalf("no approval appeared within 90s")
	return clitest.Approval{}, nil
}

func finish(t *testing.T, what string, pending <-chan asyncCall) inspectorCall {
	t.Helper()
	r := <-pending
	if r.err != nil {
		t.Fatalf("%s: %v", what, r.err)
	}
	return r.c
}

// TestInspectorEndToEnd drives the daemon with the MCP Inspector CLI the way
// a person would try it: list the tools, run an allowed command, approve and
// deny asked ones through the control API while the inspector waits, edit a
// file, then read the whole story back from the audit timeline.
func TestInspectorEndToEnd(t *testing.T) {
	d := clitest.StartAsk(t)
	in := newInspector(t, d)
	if err := os.WriteFile(filepath.Join(d.Workspace, "hello.txt"), []byte("hello from the workspace\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d.Workspace, "config.txt"), []byte("color = blue\nsize = 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	// 1. tools/list: exactly the eight contract tools.
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	r := in.env.Run(ctx, t, in.home, "inspector", in.args("tools/list")...)
	if r.Code != 0 {
		t.Fatalf("tools/list failed:\n%s", r)
	}
	var list struct {
		Result struct {
			Tools []struct {
				Name        string         `json:"name"`
				InputSchema map[string]any `json:"inputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &list); err != nil {
		t.Fatalf("tools/list output: %v\n%s", err, r)
	}
	var names []string
	for _, tool := range list.Result.Tools {
		names = append(names, tool.Name)
		if tool.InputSchema["type"] != "object" {
			t.Errorf("%s: input schema type %v", tool.Name, tool.InputSchema["type"])
		}
	}
	sort.Strings(names)
	want := []string{"ask_human", "edit_file", "fetch_url", "list_dir", "read_file", "run_command", "search_files", "write_file"}
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Fatalf("tools/list: got %v, want %v", names, want)
	}

	// 2. An allowed command runs straight away.
	allowed := in.call("run_command", map[string]any{"argv": []string{"cat", "hello.txt"}})
	if allowed.raw.Code != 0 || allowed.Result.IsError || !strings.Contains(allowed.text(), "hello from the workspace") {
		t.Fatalf("allowed cat:\n%s", allowed.raw)
	}
	// The structured part describes the run; the text part carries its output.
	if got, _ := allowed.Result.Structured["exit_code"].(float64); got != 0 || allowed.Result.Structured["stdout_bytes"] != float64(len("hello from the workspace\n")) {
		t.Errorf("structured result = %v", allowed.Result.Structured)
	}

	// 3. An asked command waits for the person, who approves it.
	pending := in.start("run_command", map[string]any{"argv": []string{"sh", "-c", "echo approved-$((6*7))"}})
	a, pending := awaitApproval(t, d, pending)
	if a.Tool != "run_command" || strings.Join(a.Argv, " ") != "sh -c echo approved-$((6*7))" {
		t.Fatalf("approval card: %+v", a)
	}
	if code := d.Decide(a.ID, "allow", "once", ""); code != 200 {
		t.Fatalf("approve: HTTP %d", code)
	}
	approved := finish(t, "approved call", pending)
	if approved.raw.Code != 0 || approved.Result.IsError || !strings.Contains(approved.text(), "approved-42") {
		t.Fatalf("approved call (the shell should have printed approved-42):\n%s", approved.raw)
	}
	if approved.callID() != a.CallID {
		t.Errorf("approval was for call %s, result is for %s", a.CallID, approved.callID())
	}

	// 4. An asked command the person denies with a message: the agent sees
	// the message, and the command never ran.
	const denyMsg = "not in this repo; run make build instead"
	pending = in.start("run_command", map[string]any{"argv": []string{"sh", "-c", "echo should-not-run > denied.txt"}})
	a, pending = awaitApproval(t, d, pending)
	if a.Tool != "run_command" || len(a.Argv) != 3 || a.Argv[0] != "sh" {
		t.Fatalf("approval card: %+v", a)
	}
	if code := d.Decide(a.ID, "deny", "once", denyMsg); code != 200 {
		t.Fatalf("deny: HTTP %d", code)
	}
	denied := finish(t, "denied call", pending)
	if !denied.Result.IsError || !strings.Contains(denied.text(), denyMsg) {
		t.Fatalf("denied call should be a tool error carrying the message %q:\n%s", denyMsg, denied.raw)
	}
	if denied.raw.Code == 0 {
		t.Errorf("inspector exited 0 for a tool error:\n%s", denied.raw)
	}
	if _, err := os.Stat(filepath.Join(d.Workspace, "denied.txt")); !os.IsNotExist(err) {
		t.Fatalf("the denied command ran: denied.txt exists (%v)", err)
	}

	// 5. An edit in "default" mode asks; approved, it lands on disk.
	pending = in.start("edit_file", map[string]any{"path": "config.txt", "old": "color = blue", "new": "color = green"})
	a, pending = awaitApproval(t, d, pending)
	if a.Tool != "edit_file" {
		t.Fatalf("approval card for the edit: %+v", a)
	}
	if code := d.Decide(a.ID, "allow", "once", ""); code != 200 {
		t.Fatalf("approve edit: HTTP %d", code)
	}
	edited := finish(t, "edit", pending)
	if edited.raw.Code != 0 || edited.Result.IsError {
		t.Fatalf("edit_file:\n%s", edited.raw)
	}
	if b, err := os.ReadFile(filepath.Join(d.Workspace, "config.txt")); err != nil || string(b) != "color = green\nsize = 3\n" {
		t.Fatalf("config.txt after edit: %q %v", b, err)
	}

	// 6. The audit timeline tells each call's story, in order.
	byCall := map[string][]map[string]any{}
	seen := map[string]bool{}
	for _, e := range d.Events("") {
		kind, _ := e["kind"].(string)
		seen[kind] = true
		if id, _ := e["call_id"].(string); id != "" {
			byCall[id] = append(byCall[id], e)
		}
	}
	for _, k := range []string{"session.start", "tool.call", "policy.decision", "approval.requested", "approval.decided", "exec.started", "exec.finished", "tool.result", "tool.denied"} {
		if !seen[k] {
			t.Errorf("audit timeline has no %s event", k)
		}
	}
	type step struct {
		kind  string
		check func(p map[string]any) string // "" when fine
	}
	verdict := func(want string) func(map[string]any) string {
		return func(p map[string]any) string {
			if p["verdict"] != want {
				return fmt.Sprintf("verdict %v, want %s", p["verdict"], want)
			}
			return ""
		}
	}
	status := func(want, msg string) func(map[string]any) string {
		return func(p map[string]any) string {
			if p["status"] != want {
				return fmt.Sprintf("status %v, want %s", p["status"], want)
			}
			if msg != "" && p["message"] != msg {
				return fmt.Sprintf("message %v, want %q", p["message"], msg)
			}
			return ""
		}
	}
	isError := func(want bool) func(map[string]any) string {
		return func(p map[string]any) string {
			if p["is_error"] != want {
				return fmt.Sprintf("is_error %v, want %v", p["is_error"], want)
			}
			return ""
		}
	}
	for _, c := range []struct {
		name    string
		id      string
		steps   []step
		forbids []string
	}{
		{"allowed cat", allowed.callID(), []step{
			{"tool.call", nil}, {"policy.decision", verdict("allow")},
			{"exec.started", nil}, {"exec.finished", nil}, {"tool.result", isError(false)},
		}, []string{"approval.requested", "tool.denied"}},
		{"approved sh", approved.callID(), []step{
			{"tool.call", nil}, {"policy.decision", verdict("ask")},
			{"approval.requested", nil}, {"approval.decided", status("allowed", "")},
			{"exec.started", nil}, {"exec.finished", nil}, {"tool.result", isError(false)},
		}, []string{"tool.denied"}},
		{"denied sh", denied.callID(), []step{
			{"tool.call", nil}, {"policy.decision", verdict("ask")},
			{"approval.requested", nil}, {"approval.decided", status("denied", denyMsg)},
			{"tool.denied", func(p map[string]any) string {
				if s, _ := p["error"].(string); !strings.Contains(s, denyMsg) {
					return fmt.Sprintf("error %q lacks the message", s)
				}
				return ""
			}},
		}, []string{"exec.started", "exec.finished"}},
		{"approved edit", edited.callID(), []step{
			{"tool.call", nil}, {"policy.decision", verdict("ask")},
			{"approval.requested", nil}, {"approval.decided", status("allowed", "")},
			{"tool.result", isError(false)},
		}, []string{"tool.denied", "exec.started"}},
	} {
		evs := byCall[c.id]
		var got []string
		for _, e := range evs {
			got = append(got, e["kind"].(string))
		}
		i := 0
		for _, e := range evs {
			if i < len(c.steps) && e["kind"] == c.steps[i].kind {
				if chk := c.steps[i].check; chk != nil {
					p, _ := e["payload"].(map[string]any)
					if msg := chk(p); msg != "" {
						t.Errorf("%s (%s): %s event: %s", c.name, c.id, e["kind"], msg)
					}
				}
				i++
			}
			for _, f := range c.forbids {
				if e["kind"] == f {
					t.Errorf("%s (%s): unexpected %s event", c.name, c.id, f)
				}
			}
		}
		if i < len(c.steps) {
			var wantKinds []string
			for _, s := range c.steps {
				wantKinds = append(wantKinds, s.kind)
			}
			t.Errorf("%s (%s): timeline %v lacks, in order, %v (stopped at %s)", c.name, c.id, got, wantKinds, c.steps[i].kind)
		}
	}
}
