//go:build integration

package cli_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

func call(t *testing.T, s *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

type outcome struct {
	res *mcp.CallToolResult
	err error
}

// callAsync is call for goroutines: it reports instead of failing the test.
func callAsync(ctx context.Context, s *mcp.ClientSession, name string, args map[string]any) outcome {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	return outcome{res, err}
}

func kinds(events []map[string]any) []string {
	var out []string
	for _, e := range events {
		out = append(out, e["kind"].(string))
	}
	return out
}

func TestMCPToolsAndSchemas(t *testing.T) {
	d := clitest.StartAsk(t)
	s := d.MCP(t.Context(), "schema-probe")
	res, err := s.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, tool := range res.Tools {
		got[tool.Name] = true
		b, _ := json.Marshal(tool.InputSchema)
		if !strings.Contains(string(b), `"additionalProperties":false`) {
			t.Errorf("%s schema does not close additionalProperties: %s", tool.Name, b)
		}
		for _, forbidden := range []string{"approve", "kill", "rollback", "policy"} {
			if strings.Contains(tool.Name, forbidden) {
				t.Errorf("tool %s would give the agent a control capability", tool.Name)
			}
		}
	}
	for _, want := range []string{"run_command", "fetch_url", "ask_human"} {
		if !got[want] {
			t.Errorf("tool %s missing (have %v)", want, got)
		}
	}
	if init := s.InitializeResult(); init == nil || !strings.Contains(init.Instructions, "external_document") {
		t.Errorf("server instructions do not explain the trust boundary")
	}
}

// TestMCPAllowAskDeny is the core flow: an allowed command, one the person
// approves through the control API, and one the person denies with a message.
func TestMCPAllowAskDeny(t *testing.T) {
	d := clitest.StartAsk(t)
	os.WriteFile(filepath.Join(d.Workspace, "hello.txt"), []byte("hi there\n"), 0o644)
	s := d.MCP(t.Context(), "flow-probe")

	res := call(t, s, "run_command", map[string]any{"argv": []string{"cat", "hello.txt"}})
	if res.IsError || !strings.Contains(clitest.Text(t, res), "hi there") {
		t.Fatalf("allowed cat: %v %s", res.IsError, clitest.Text(t, res))
	}

	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		done <- call(t, s, "run_command", map[string]any{"argv": []string{"sh", "-c", "echo approved-output"}})
	}()
	a := d.WaitApproval(clitest.CardWait)
	if a.Tool != "run_command" || len(a.Argv) != 3 || a.Argv[0] != "sh" {
		t.Fatalf("approval card: %+v", a)
	}
	if code := d.Decide(a.ID, "allow", "once", ""); code != 200 {
		t.Fatalf("approve: %d", code)
	}
	res = <-done
	if res.IsError || !strings.Contains(clitest.Text(t, res), "approved-output") {
		t.Fatalf("approved call: %s", clitest.Text(t, res))
	}

	go func() { done <- call(t, s, "run_command", map[string]any{"argv": []string{"sh", "-c", "rm -rf /"}}) }()
	a = d.WaitApproval(clitest.CardWait)
	d.Decide(a.ID, "deny", "once", "never touch the root, use the build dir")
	res = <-done
	if !res.IsError || !strings.Contains(clitest.Text(t, res), "never touch the root, use the build dir") {
		t.Fatalf("denied call: %v %s", res.IsError, clitest.Text(t, res))
	}

	ev := kinds(d.Events("kind=approval."))
	if strings.Join(ev, ",") != "approval.requested,approval.decided,approval.requested,approval.decided" {
		t.Fatalf("approval events: %v", ev)
	}
	all := strings.Join(kinds(d.Events("")), ",")
	for _, k := range []string{"session.start", "tool.call", "tool.validated", "policy.decision", "exec.started", "exec.finished", "tool.result", "tool.denied"} {
		if !strings.Contains(all, k) {
			t.Errorf("timeline lacks %s: %s", k, all)
		}
	}
}

func TestMCPSessionGrant(t *testing.T) {
	d := clitest.StartAsk(t)
	s := d.MCP(t.Context(), "grant-probe")
	done := make(chan *mcp.CallToolResult, 1)
	go func() { done <- call(t, s, "run_command", map[string]any{"argv": []string{"sh", "-c", "echo one"}}) }()
	a := d.WaitApproval(clitest.CardWait)
	d.Decide(a.ID, "allow", "session", "")
	if r := <-done; r.IsError {
		t.Fatalf("first: %s", clitest.Text(t, r))
	}
	// The same binary and prefix now runs without asking, in this session only.
	r := call(t, s, "run_command", map[string]any{"argv": []string{"sh", "-c", "echo one"}})
	if r.IsError || !strings.Contains(clitest.Text(t, r), "one") {
		t.Fatalf("granted call: %s", clitest.Text(t, r))
	}
	if n := len(d.Events("kind=approval.requested")); n != 1 {
		t.Fatalf("%d approvals requested, want 1", n)
	}
}

// TestApprovalNeedsControlCapability: the agent cannot approve its own call,
// neither with its token on the control API nor through any MCP call.
func TestApprovalNeedsControlCapability(t *testing.T) {
	d := clitest.StartAsk(t)
	s := d.MCP(t.Context(), "sneaky-agent")
	done := make(chan *mcp.CallToolResult, 1)
	go func() { done <- call(t, s, "run_command", map[string]any{"argv": []string{"sh", "-c", "echo pwned"}}) }()
	a := d.WaitApproval(clitest.CardWait)
	agentHdr := map[string]string{"Authorization": "Bearer " + d.Token("agent"), "Content-Type": "application/json"}
	resp, _ := d.Request("POST", "/api/v1/approvals/"+a.ID, strings.NewReader(`{"decision":"allow","scope":"always"}`), agentHdr)
	if resp.StatusCode != 401 {
		t.Fatalf("agent token approving: %d", resp.StatusCode)
	}
	// MCP offers no way either: unknown tools and methods are refused.
	other := d.MCP(t.Context(), "sneaky-agent-2")
	for _, name := range []string{"approve", "approvals", "kill", "rollback"} {
		r, err := other.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{"id": a.ID, "decision": "allow"}})
		if err == nil && !r.IsError {
			t.Fatalf("MCP tool %q exists", name)
		}
	}
	// Still pending: the person decides.
	if got := d.WaitApproval(5 * time.Second); got.ID != a.ID {
		t.Fatalf("approval changed: %+v", got)
	}
	d.Decide(a.ID, "deny", "once", "no")
	if r := <-done; !r.IsError {
		t.Fatal("call ran")
	}
}

func TestMCPBadInput(t *testing.T) {
	d := clitest.StartAsk(t)
	s := d.MCP(t.Context(), "bad-input")
	big := strings.Repeat("a", 11<<20)
	tests := []struct {
		name string
		tool string
		args map[string]any
		want string
	}{
		{"unknown tool", "format_disk", map[string]any{}, "unknown tool"},
		{"missing argv", "run_command", map[string]any{}, "argv"},
		{"wrong type", "run_command", map[string]any{"argv": "ls -la"}, "argv"},
		{"extra property", "run_command", map[string]any{"argv": []string{"ls"}, "shell": true}, "shell"},
		{"empty argv", "run_command", map[string]any{"argv": []string{}}, "argv"},
		{"NUL in argument", "run_command", map[string]any{"argv": []string{"ls", "a\x00b"}}, "NUL"},
		{"cwd escape", "run_command", map[string]any{"argv": []string{"ls"}, "cwd": "../.."}, "outside the workspace"},
		{"binary not on PATH", "run_command", map[string]any{"argv": []string{"no-such-program-xyz"}}, "not found"},
		{"file scheme", "fetch_url", map[string]any{"url": "file:///etc/passwd"}, "http"},
		{"gopher scheme", "fetch_url", map[string]any{"url": "gopher://example.com/"}, "http"},
		{"credentials in url", "fetch_url", map[string]any{"url": "http://user:pw@example.com/"}, ""},
		{"decimal ip", "fetch_url", map[string]any{"url": "http://2130706433/"}, ""},
		{"hex ip", "fetch_url", map[string]any{"url": "http://0x7f000001/"}, ""},
		{"octal ip", "fetch_url", map[string]any{"url": "http://0177.0.0.1/"}, ""},
		{"metadata", "fetch_url", map[string]any{"url": "http://169.254.169.254/latest/meta-data/"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: tt.tool, Arguments: tt.args})
			if err != nil {
				if tt.want != "" && !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("error %v lacks %q", err, tt.want)
				}
				return
			}
			text := clitest.Text(t, r)
			if !r.IsError {
				t.Fatalf("accepted: %s", text)
			}
			if tt.want != "" && !strings.Contains(text, tt.want) {
				t.Fatalf("error %q lacks %q", text, tt.want)
			}
		})
	}
	t.Run("9 MiB argument", func(t *testing.T) {
		r, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"argv": []string{"echo", big[:9<<20]}}})
		// The argument is named, never sent back.
		if err != nil || !r.IsError || !strings.Contains(clitest.Text(t, r), "argv must be at most 131072 characters long") || len(clitest.Text(t, r)) > 1024 {
			t.Fatalf("9 MiB argument: %v %.2000v", err, r)
		}
	})
	t.Run("11 MiB request", func(t *testing.T) {
		// Over the 10 MiB body cap: refused at the door, before parsing.
		s2 := d.MCP(t.Context(), "huge")
		r, err := s2.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"argv": []string{"echo", big}}})
		if err == nil && !r.IsError {
			t.Fatal("11 MiB request accepted")
		}
	})
	// Every refusal left an audit row, and no command ran.
	invalid := d.Events("kind=tool.invalid")
	if len(invalid) < 8 {
		t.Fatalf("only %d tool.invalid rows", len(invalid))
	}
	if ex := d.Events("kind=exec.started"); len(ex) != 0 {
		t.Fatalf("bad input reached exec: %v", ex)
	}
	// The daemon is fine.
	s = d.MCP(t.Context(), "after-bad-input")
	if r := call(t, s, "run_command", map[string]any{"argv": []string{"true"}}); r.IsError {
		t.Fatalf("daemon unhealthy after bad input: %s", clitest.Text(t, r))
	}
}

// TestKillStopsEverything: a running sandboxed command and a pending
// approval both end when the kill switch fires; new calls are refused.
func TestKillStopsEverything(t *testing.T) {
	d := clitest.StartAsk(t)
	s := d.MCP(t.Context(), "killable")
	running := make(chan outcome, 1)
	go func() {
		running <- callAsync(t.Context(), s, "run_command", map[string]any{"argv": []string{"sh", "-c", "sleep 1000 & sleep 1000"}, "timeout_s": 900})
	}()
	a := d.WaitApproval(clitest.CardWait)
	d.Decide(a.ID, "allow", "once", "")
	clitest.WaitFor(t, 30*time.Second, "the command to run", func() bool { return len(d.Events("kind=exec.started")) > 0 })
	s2 := d.MCP(t.Context(), "waiting")
	pending := make(chan outcome, 1)
	go func() {
		pending <- callAsync(t.Context(), s2, "run_command", map[string]any{"argv": []string{"sh", "-c", "echo later"}})
	}()
	d.WaitApproval(clitest.CardWait)

	start := time.Now()
	if out, _, code := d.CLI(t.Context(), "kill", "--reason", "test"); code != 0 {
		t.Fatalf("kill: %s", out)
	}
	for _, ch := range []chan outcome{running, pending} {
		select {
		case o := <-ch:
			// The agent hears back: a tool error saying why and to wait,
			// not a dead stream.
			if o.err != nil {
				t.Fatalf("call got no answer after the kill: %v", o.err)
			}
			if !o.res.IsError || !strings.Contains(clitest.Text(t, o.res), "the person stopped all agents; wait, do not retry") {
				t.Fatalf("after kill: %s", clitest.Text(t, o.res))
			}
		case <-time.After(20 * time.Second):
			t.Fatal("call still running 20s after kill")
		}
	}
	t.Logf("kill took %v", time.Since(start))
	out, _ := pgrep("sleep 1000")
	if out != "" {
		t.Fatalf("sandboxed processes survived the kill: %s", out)
	}
	// New sessions are refused until resume, whichever protocol revision.
	c := mcp.NewClient(&mcp.Implementation{Name: "after-kill", Version: "1"}, nil)
	if _, err := c.Connect(t.Context(), d.MCPTransport(), &mcp.ClientSessionOptions{ProtocolVersion: clitest.StatefulProtocol}); err == nil {
		t.Fatal("new session accepted while killed")
	}
	if s4, err := c.Connect(t.Context(), d.MCPTransport(), &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"}); err == nil {
		r, err := s4.CallTool(t.Context(), &mcp.CallToolParams{Name: "list_dir", Arguments: map[string]any{}})
		if err == nil && !r.IsError {
			t.Fatal("stateless call accepted while killed")
		}
		s4.Close()
	}
	d.CLI(t.Context(), "resume")
	s3 := d.MCP(t.Context(), "after-resume")
	if r := call(t, s3, "run_command", map[string]any{"argv": []string{"true"}}); r.IsError {
		t.Fatalf("after resume: %s", clitest.Text(t, r))
	}
}
