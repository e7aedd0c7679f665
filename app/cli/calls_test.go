package cli

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/audit"
	"github.com/gatehouse-dev/gatehouse/backend/session"
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

// TestFoldCallsNamesOutcomes: a call's result column names how it ended,
// from the outcome on its last row, and the verdict says which card the
// decision was on.
func TestFoldCallsNamesOutcomes(t *testing.T) {
	reset := map[string]any{"argv": []string{"git", "reset", "--hard", "HEAD~2"}}
	events := []audit.Event{
		ev(1, "c1", "tool.call", map[string]any{"tool": "run_command", "args": reset}),
		ev(2, "c1", "policy.decision", map[string]any{"tool": "run_command", "verdict": "allow"}),
		ev(3, "c1", "effect.decision", map[string]any{"verdict": "ask", "reason": "it rewrites history"}),
		ev(4, "c1", "approval.requested", map[string]any{"kind": "effect"}),
		ev(5, "c1", "approval.decided", map[string]any{"status": "denied", "message": "keep my history"}),
		ev(6, "c1", "tool.result", map[string]any{"tool": "run_command", "is_error": true, "bytes": 40, "preview": "exit code 0\n",
			"outcome": map[string]any{"outcome": "discarded", "by": "person", "message": "keep my history", "held": true}}),
		ev(7, "c2", "tool.call", map[string]any{"tool": "run_command", "args": reset}),
		ev(8, "c2", "policy.decision", map[string]any{"verdict": "allow"}),
		ev(9, "c2", "approval.requested", map[string]any{"kind": "effect"}),
		ev(10, "c2", "approval.decided", map[string]any{"status": "allowed"}),
		ev(11, "c2", "tool.result", map[string]any{"tool": "run_command", "bytes": 2048, "outcome": map[string]any{"outcome": "applied", "held": true}}),
		ev(12, "c3", "tool.call", map[string]any{"tool": "run_command", "args": map[string]any{"argv": []string{"false"}}}),
		ev(13, "c3", "tool.result", map[string]any{"tool": "run_command", "is_error": true, "outcome": map[string]any{"outcome": "failed", "exit_code": 2}}),
		ev(14, "c4", "tool.call", map[string]any{"tool": "run_command", "args": map[string]any{"argv": []string{"rm", "-rf", "src"}}}),
		ev(15, "c4", "effect.decision", map[string]any{"verdict": "deny", "reason": "no deleting src"}),
		ev(16, "c4", "tool.result", map[string]any{"tool": "run_command", "is_error": true, "outcome": map[string]any{"outcome": "discarded", "by": "policy"}}),
		ev(17, "c5", "tool.call", map[string]any{"tool": "read_file", "args": map[string]any{"path": "x"}}),
		ev(18, "c5", "tool.invalid", map[string]any{"tool": "read_file", "error": "invalid arguments", "outcome": map[string]any{"outcome": "refused"}}),
		ev(19, "c6", "tool.call", map[string]any{"tool": "Read", "args": map[string]any{"path": "y"}}),
		ev(20, "c6", "tool.cleared", map[string]any{"tool": "read_file", "outcome": map[string]any{"outcome": "cleared"}}),
	}
	want := []struct{ verdict, result, label string }{
		{"allow, changes denied", "discarded by you: keep my history", "discarded by you: keep my history"},
		{"allow, changes allowed", "applied after your approval, 2.0 KiB", "applied after your approval"},
		{"-", "failed (exit 2)", "failed (exit 2)"},
		{"-", "discarded by policy (no deleting src)", "discarded by policy"},
		{"-", "refused by Gatehouse: invalid arguments", "refused by Gatehouse"},
		{"-", "cleared; the agent's own tool ran it", "cleared; the agent's own tool ran it"},
	}
	got := foldCalls(events)
	if len(got) != len(want) {
		t.Fatalf("got %d calls, want %d", len(got), len(want))
	}
	for i, w := range want {
		if g := got[i]; g.verdict() != w.verdict || g.result() != w.result || g.Label != w.label {
			t.Errorf("call %d: %q %q %q, want %q %q %q", i, g.verdict(), g.result(), g.Label, w.verdict, w.result, w.label)
		}
	}
}

// TestCallsSummaryAddsUp: the summary counts each call once, by outcome,
// and says apart how many asked.
func TestCallsSummaryAddsUp(t *testing.T) {
	tests := []struct {
		name string
		info session.Info
		want string
	}{
		{"the reported session", session.Info{Status: session.Ended, Counters: session.Counters{Calls: 5, Asked: 2,
			Outcomes: session.Tally{OK: 2, Applied: 1, Discarded: 1, Failed: 1}}},
			"5 calls: 2 ok, 1 applied, 1 failed, 1 discarded. 2 of them asked you first."},
		{"one call running", session.Info{Status: session.Active, Counters: session.Counters{Calls: 2, Outcomes: session.Tally{OK: 1}}},
			"2 calls: 1 ok, 1 running or waiting."},
		{"a cleared call that never ran", session.Info{Status: session.Ended, Counters: session.Counters{Calls: 3, Asked: 1, Outcomes: session.Tally{Denied: 1, Stopped: 1}}},
			"3 calls: 1 denied, 1 stopped by the kill switch, 1 never finished. 1 of them asked you first."},
		{"one call that asked", session.Info{Status: session.Ended, Counters: session.Counters{Calls: 1, Asked: 1, Outcomes: session.Tally{RolledBack: 1}}},
			"1 call: 1 rolled back. It asked you first."},
		{"recorded before outcomes", session.Info{Status: session.Ended, Counters: session.Counters{Calls: 4, Allowed: 3, Denied: 1}}, "4 calls."},
		{"no calls", session.Info{Status: session.Active}, "0 calls."},
		{"a confined run's network card", session.Info{Status: session.Ended, Counters: session.Counters{Asked: 1}}, "0 calls. Gatehouse asked you once."},
		{"more cards than calls", session.Info{Status: session.Ended, Counters: session.Counters{Calls: 1, Asked: 3, Outcomes: session.Tally{OK: 1}}},
			"1 call: 1 ok. Gatehouse asked you 3 times."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := callsSummary(tt.info); got != tt.want {
				t.Fatalf("callsSummary = %q, want %q", got, tt.want)
			}
		})
	}
}
