//go:build integration

package cli_test

import (
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
