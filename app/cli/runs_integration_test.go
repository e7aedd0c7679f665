//go:build integration

package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/app/cli/agenttest"
	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// bridgeSession connects through `gatehouse mcp --agent claude` as a
// Claude Code run with the given session id would.
func bridgeSession(t *testing.T, d *clitest.Daemon, runID string) (*mcp.ClientSession, *exec.Cmd) {
	t.Helper()
	cmd := d.Bridge("--agent", "claude")
	cmd.Env = append(cmd.Env, "CLAUDE_CODE_SESSION_ID="+runID)
	c := mcp.NewClient(&mcp.Implementation{Name: "claude-code", Version: "2"}, nil)
	s, err := c.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: clitest.StatefulProtocol})
	if err != nil {
		t.Fatalf("connect through the bridge: %v", err)
	}
	return s, cmd
}

type sessionRow struct {
	ID        string `json:"id"`
	Run       string `json:"run"`
	Status    string `json:"status"`
	Transport string `json:"transport"`
	EndReason string `json:"end_reason"`
}

func listSessions(t *testing.T, d *clitest.Daemon) []sessionRow {
	t.Helper()
	out, _, _ := d.CLI(t.Context(), "sessions", "--json")
	var list []sessionRow
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("sessions --json: %v %s", err, out)
	}
	return list
}

// TestOneSessionPerRun: two runs of the same agent are two sessions, and
// an "allow for this session" in one never applies in the other; a run's
// session ends when its bridge goes.
func TestOneSessionPerRun(t *testing.T) {
	d := clitest.StartAsk(t)
	a, cmdA := bridgeSession(t, d, "run-a")
	b, _ := bridgeSession(t, d, "run-b")
	defer b.Close()
	asking := map[string]any{"argv": []string{"sh", "-c", "echo granted"}}

	done := make(chan outcome, 1)
	go func() { done <- callAsync(t.Context(), a, "run_command", asking) }()
	card := d.WaitApproval(clitest.CardWait)
	d.Decide(card.ID, "allow", "session", "")
	if o := <-done; o.err != nil || o.res.IsError {
		t.Fatalf("run a: %v %+v", o.err, o.res)
	}
	// The grant holds in run a …
	if r := call(t, a, "run_command", asking); r.IsError || !strings.Contains(clitest.Text(t, r), "granted") {
		t.Fatalf("run a again: %s", clitest.Text(t, r))
	}
	// … and run b is asked.
	go func() { done <- callAsync(t.Context(), b, "run_command", asking) }()
	card = d.WaitApproval(clitest.CardWait)
	d.Decide(card.ID, "deny", "once", "")
	<-done

	list := listSessions(t, d)
	runs := map[string]sessionRow{}
	for _, s := range list {
		runs[s.Run] = s
	}
	if len(list) != 2 || runs["claude:run-a"].Transport != "stdio" || runs["claude:run-b"].ID == "" {
		t.Fatalf("sessions: %+v", list)
	}
	// Run a's agent exits: its bridge goes, and its session ends.
	a.Close()
	cmdA.Wait()
	clitest.WaitFor(t, 30*time.Second, "run a's session to end", func() bool {
		for _, s := range listSessions(t, d) {
			if s.Run == "claude:run-a" {
				return s.Status == "ended"
			}
		}
		return false
	})
}

// TestStatelessClientGetsNoSessionScope: a stateless client that names no
// run cannot be told apart from its other runs, so its cards offer "once"
// and a "session" answer grants nothing beyond the call.
func TestStatelessClientGetsNoSessionScope(t *testing.T) {
	d := clitest.StartAsk(t)
	c := mcp.NewClient(&mcp.Implementation{Name: "new-protocol", Version: "1"}, nil)
	s, err := c.Connect(t.Context(), d.MCPTransport(), &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	asking := map[string]any{"argv": []string{"sh", "-c", "echo x"}}
	done := make(chan outcome, 1)
	go func() { done <- callAsync(t.Context(), s, "run_command", asking) }()
	card := d.WaitApproval(clitest.CardWait)
	if p := d.Pending(); len(p) != 1 || !p[0].NoSessionScope {
		t.Fatalf("card: %+v", p)
	}
	d.Decide(card.ID, "allow", "session", "")
	<-done
	go func() { done <- callAsync(t.Context(), s, "run_command", asking) }()
	d.WaitApproval(clitest.CardWait) // asked again: no session grant was made
	d.Decide(d.Pending()[0].ID, "deny", "once", "")
	<-done
}

// TestCodexCallsJoinTheHookRun: Codex names its run only in each call's
// _meta, so its MCP calls through a bridge land in the same session as its
// hooks.
func TestCodexCallsJoinTheHookRun(t *testing.T) {
	d := clitest.Start(t)
	os.WriteFile(filepath.Join(d.Workspace, "a.txt"), []byte("hi\n"), 0o644)
	cmd := d.Bridge("--agent", "codex")
	c := mcp.NewClient(&mcp.Implementation{Name: "codex-mcp-client", Version: "0.171.0"}, nil)
	s, err := c.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	params := &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "a.txt"}}
	params.SetMeta(map[string]any{"sessionId": "codex-run-1", "threadId": "codex-run-1"})
	if r, err := s.CallTool(t.Context(), params); err != nil || r.IsError {
		t.Fatalf("read through the bridge: %v %+v", err, r)
	}
	out, _, code := hookRun(t, d.Bin, d.Data, "codex", preToolUse("codex-run-1", "Bash", map[string]any{"command": "cat a.txt"}, d.Workspace))
	if dec, _, _ := claudeDecision(t, out); code != 0 || dec != "allow" {
		t.Fatalf("hook: %d %s", code, out)
	}
	var calls int64
	var runs []string
	o, _, _ := d.CLI(t.Context(), "sessions", "--json")
	var list []struct {
		Run   string `json:"run"`
		Calls int64  `json:"calls"`
	}
	json.Unmarshal([]byte(o), &list)
	for _, x := range list {
		if x.Run == "codex:codex-run-1" {
			calls = x.Calls
		}
		runs = append(runs, x.Run)
	}
	if calls != 2 {
		t.Fatalf("the Codex run's session has %d calls (sessions %v), want the bridge's and the hook's", calls, runs)
	}
}

// TestGeminiCallsJoinTheHookRun: Gemini CLI names its run neither to its
// MCP servers nor in its calls, so the bridge and the hooks name it by
// the Gemini process that starts both; the real CLI's MCP call and its
// own shell tool land in one session.
func TestGeminiCallsJoinTheHookRun(t *testing.T) {
	d := clitest.Start(t)
	model := agenttest.StartModel(t, agenttest.Gemini, agenttest.Script{
		agenttest.Call("mcp_gatehouse_run_command", map[string]any{"argv": []string{"echo", "via-mcp"}}),
		agenttest.Call("run_shell_command", map[string]any{"command": "echo via-shell"}),
		agenttest.Say("done"),
	})
	cli := pinnedAgent(t, "Gemini CLI", agenttest.NewGemini, filepath.Join(t.TempDir(), "home"), model)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	if out, errOut, code := clitest.Run(ctx, t, d.Bin, cli.Environ(), "--data", d.Data, "install", "gemini"); code != 0 {
		t.Fatalf("gatehouse install gemini: exit %d\n%s%s", code, out, errOut)
	}
	res, err := cli.RunGemini(ctx, d.Workspace, "echo twice", "--approval-mode", "yolo")
	if err != nil {
		t.Fatal(err)
	}
	if !res.ModelSaw("via-mcp") || !res.ModelSaw("via-shell") {
		t.Fatalf("the model did not see both commands' output:\n%s\ndaemon log:\n%s", strings.Join(res.ToolResults(), "\n---\n"), d.Log())
	}
	var gemini []string
	for _, s := range listSessions(t, d) {
		if strings.HasPrefix(s.Run, "gemini:") || strings.HasPrefix(s.Run, "bridge:") {
			gemini = append(gemini, s.Run+" "+s.ID)
		}
	}
	if len(gemini) != 1 || !strings.HasPrefix(gemini[0], "gemini:proc-") {
		t.Fatalf("Gemini's run is in sessions %v, want one named by its process", gemini)
	}
	id := strings.Fields(gemini[0])[1]
	var via []string
	for _, e := range d.Events("kind=tool.call&session=" + id) {
		p, _ := e["payload"].(map[string]any)
		v, _ := p["via"].(string)
		via = append(via, fmt.Sprintf("%v/%s", p["tool"], v))
	}
	if len(via) != 2 {
		t.Fatalf("the session's calls: %v, want the MCP call and the hook's", via)
	}
}
