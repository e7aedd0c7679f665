//go:build integration

package cli_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// The pause and resume switches say what they did, record their reasons
// as kill does, and `approvals` says what the pause holds.
func TestSwitchesSayWhatHappened(t *testing.T) {
	d := clitest.Start(t)
	s := d.MCP(t.Context(), "switch-probe")

	cli := func(want string, args ...string) string {
		t.Helper()
		out, stderr, code := d.CLI(t.Context(), args...)
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("%v: exit %d, want %q in:\n%s%s", args, code, want, out, stderr)
		}
		return out
	}
	cli("Paused.", "pause", "--reason", "reviewing the diff")
	cli("Already paused", "pause")

	held := make(chan outcome, 1)
	go func() { held <- callAsync(t.Context(), s, "list_dir", map[string]any{}) }()
	clitest.WaitFor(t, 30*time.Second, "the call to wait on the pause", func() bool {
		out, _, _ := d.CLI(t.Context(), "approvals")
		return strings.Contains(out, "1 call is waiting on the pause")
	})
	cli("Nothing is waiting for your decision.", "approvals")
	select {
	case o := <-held:
		t.Fatalf("a call ran while paused: %+v", o)
	default:
	}

	cli("Resumed. Waiting calls run now", "resume", "--reason", "looks fine")
	select {
	case o := <-held:
		if o.err != nil || o.res.IsError {
			t.Fatalf("held call after resume: %v %+v", o.err, o.res)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the held call did not run after resume")
	}
	cli("Nothing was paused or stopped", "resume")
	if out := cli("Nothing is waiting", "approvals"); strings.Contains(out, "paused") {
		t.Fatalf("approvals still mentions the pause after resume:\n%s", out)
	}

	reasons := map[string]string{}
	for _, e := range d.Events("kind=system.") {
		p, _ := e["payload"].(map[string]any)
		if r, ok := p["reason"].(string); ok {
			reasons[e["kind"].(string)] += r + ";"
		}
	}
	if reasons["system.pause"] != "reviewing the diff via cli;" {
		t.Errorf("system.pause reasons = %q, want the one --reason (a second pause records nothing)", reasons["system.pause"])
	}
	if reasons["system.resume"] != "looks fine via cli;" {
		t.Errorf("system.resume reasons = %q, want the one --reason (a resume that lifts nothing records nothing)", reasons["system.resume"])
	}

	// After the kill switch, approvals says so and the agent is told to wait.
	cli("Stopped 1 session", "kill", "--reason", "enough")
	cli("All agents are stopped (kill switch)", "approvals")
	r := call(t, s, "list_dir", map[string]any{})
	if !r.IsError || !strings.Contains(clitest.Text(t, r), "the person stopped all agents; wait, do not retry") {
		t.Fatalf("the agent was not told to wait: %s", clitest.Text(t, r))
	}
	cli("Resumed after the kill switch", "resume")
}
