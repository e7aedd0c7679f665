package cli

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/audit"
)

func ev(seq int64, call, kind string, payload map[string]any) audit.Event {
	b, _ := json.Marshal(payload)
	return audit.Event{Seq: seq, Time: time.Unix(seq, 0), CallID: call, Kind: kind, Payload: b}
}

func TestFoldCalls(t *testing.T) {
	events := []audit.Event{
		ev(1, "", "session.start", map[string]any{"client_name": "x"}),
		// A local read: one row with args, verdict and result.
		ev(2, "c1", "tool.result", map[string]any{"tool": "read_file", "args": map[string]any{"path": "go.mod"}, "verdict": "allow", "is_error": false, "bytes": 2048}),
		ev(3, "c2", "tool.call", map[string]any{"tool": "run_command", "args": map[string]any{"argv": []string{"rm", "-rf /", "\x1b[2J"}}}),
		ev(4, "c2", "policy.decision", map[string]any{"tool": "run_command", "verdict": "ask"}),
		ev(5, "c2", "approval.requested", map[string]any{"tool": "run_command"}),
		ev(6, "c2", "approval.decided", map[string]any{"status": "denied"}),
		ev(7, "c2", "tool.denied", map[string]any{"tool": "run_command", "error": "The person denied this call: no\nsecond line"}),
		ev(8, "c3", "tool.call", map[string]any{"tool": "write_file", "args": map[string]any{"path": "a\u202etxt", "content": "x"}}),
		ev(9, "c3", "policy.decision", map[string]any{"verdict": "ask"}),
		ev(10, "c3", "approval.requested", map[string]any{}),
		ev(11, "c4", "tool.call", map[string]any{"tool": "run_command", "args": map[string]any{"argv": []string{"false"}}}),
		ev(12, "c4", "policy.decision", map[string]any{"verdict": "allow"}),
		ev(13, "c4", "tool.result", map[string]any{"tool": "run_command", "is_error": true, "preview": "exit code 1\n--- stderr ---\nboom"}),
		ev(14, "c5", "tool.call", map[string]any{"tool": "list_dir", "args": map[string]any{}}),
		ev(15, "c5", "tool.refused", map[string]any{"tool": "list_dir", "error": "the person stopped all agents; wait, do not retry"}),
	}
	got := foldCalls(events)
	want := []struct{ id, tool, verdict, args, result string }{
		{"c1", "read_file", "allow", "go.mod", "ok, 2.0 KiB"},
		{"c2", "run_command", "ask, denied", `rm '-rf /' '\x1b[2J'`, "denied: The person denied this call: no"},
		{"c3", "write_file", "ask", `a\u202etxt`, "waiting for a decision"},
		{"c4", "run_command", "allow", "false", "error: exit code 1"},
		{"c5", "list_dir", "-", "", "refused: the person stopped all agents; wait, do not retry"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d calls, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.ID != w.id || g.Tool != w.tool || g.verdict() != w.verdict || g.args() != w.args || g.result() != w.result {
			t.Errorf("call %d = %s %s %q %q %q\nwant      %s %s %q %q %q", i, g.ID, g.Tool, g.verdict(), g.args(), g.result(), w.id, w.tool, w.verdict, w.args, w.result)
		}
	}
	if !got[0].Time.Equal(time.Unix(2, 0)) {
		t.Errorf("a call's time is its first event's: %v", got[0].Time)
	}
}
