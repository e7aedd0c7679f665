//go:build integration

package cli_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// TestCardFloodIsCapped: an agent firing many asking calls at once puts
// at most the cap of cards in front of the person; the rest fail at once
// with a sentence, and the person can deny everything waiting from that
// session in one go.
func TestCardFloodIsCapped(t *testing.T) {
	d := clitest.StartAsk(t)
	s := d.MCP(t.Context(), "flooder")
	const calls = 25
	results := make(chan outcome, calls)
	var wg sync.WaitGroup
	for i := 0; i < calls; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results <- callAsync(t.Context(), s, "run_command", map[string]any{"argv": []string{"sh", "-c", fmt.Sprintf("echo %d", i)}})
		}()
	}
	// Every call beyond the cap comes back at once.
	refused := 0
	for refused < calls-10 {
		select {
		case o := <-results:
			if o.err != nil || !o.res.IsError || !strings.Contains(clitest.Text(t, o.res), "waiting for a decision") {
				t.Fatalf("over the cap: %v %+v", o.err, o.res)
			}
			refused++
		case <-time.After(30 * time.Second):
			t.Fatalf("only %d calls were refused; %d cards wait", refused, len(d.Pending()))
		}
	}
	clitest.WaitFor(t, 10*time.Second, "10 cards", func() bool { return len(d.Pending()) == 10 })
	sess := d.Pending()[0].Session
	h := d.Control()
	h["Content-Type"] = "application/json"
	resp, body := d.Request("POST", "/api/v1/sessions/"+sess+"/deny-pending", strings.NewReader(`{"message":"stop flooding"}`), h)
	if resp.StatusCode != 200 || !strings.Contains(body, `"denied":10`) {
		t.Fatalf("deny-pending: %d %s", resp.StatusCode, body)
	}
	wg.Wait()
	close(results)
	for o := range results {
		if o.err != nil || !o.res.IsError || !strings.Contains(clitest.Text(t, o.res), "stop flooding") {
			t.Fatalf("denied call: %v %+v", o.err, o.res)
		}
	}
	if ev := d.Events("kind=approval.refused"); len(ev) != calls-10 {
		t.Fatalf("%d approval.refused rows, want %d", len(ev), calls-10)
	}
}
