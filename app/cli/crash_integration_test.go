//go:build integration

package cli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// TestCrashKeepsAcknowledgedEvents: 20 MCP clients call tools concurrently,
// the daemon is SIGKILLed mid-stream, and after a restart the database is
// intact, the hash chain verifies, and every call a client saw answered has
// its audit rows.
func TestCrashKeepsAcknowledgedEvents(t *testing.T) {
	d := clitest.Start(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()

	var mu sync.Mutex
	acked := map[string]bool{}
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		s := d.MCP(t.Context(), "crash-client")
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"argv": []string{"true"}}})
				if err != nil {
					return // the daemon died under us
				}
				if id, ok := res.Meta["gatehouse/call_id"].(string); ok {
					mu.Lock()
					acked[id] = true
					mu.Unlock()
				}
			}
		}()
	}
	// Let the load build, then kill without warning.
	clitest.WaitFor(t, 60*time.Second, "100 acknowledged calls", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(acked) >= 100
	})
	d.Kill()
	cancel()
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(acked) < 20 {
		t.Fatalf("only %d calls acknowledged before the kill", len(acked))
	}

	out, err := exec.Command("sqlite3", filepath.Join(d.Data, "gatehouse.db"), "PRAGMA integrity_check").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("integrity_check: %v %s", err, out)
	}
	d.Restart()
	if out, _, code := d.CLI(t.Context(), "audit", "verify"); code != 0 {
		t.Fatalf("audit verify after SIGKILL: %s", out)
	}
	export, _, code := d.CLI(t.Context(), "audit", "export")
	if code != 0 {
		t.Fatal("export failed")
	}
	results := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(export))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e struct {
			Kind   string `json:"kind"`
			CallID string `json:"call_id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		if e.Kind == "tool.result" {
			results[e.CallID] = true
		}
	}
	missing := 0
	for id := range acked {
		if !results[id] {
			missing++
		}
	}
	if missing > 0 {
		t.Fatalf("%d of %d acknowledged calls have no tool.result row after the crash", missing, len(acked))
	}
	t.Logf("%d acknowledged calls all present after SIGKILL", len(acked))
	// Sessions the dead daemon left active are closed on restart.
	if out, _, _ := d.CLI(t.Context(), "sessions", "--status", "active"); !strings.Contains(out, "No sessions") {
		t.Fatalf("stale sessions still active: %s", out)
	}
}
