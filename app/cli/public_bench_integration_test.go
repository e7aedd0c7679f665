//go:build integration

package cli_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
	"github.com/gatehouse-dev/gatehouse/bench/medians"
)

// BenchmarkPublicDecisionResumesCall: a card answered through an
// exposure on loopback, from the decision's POST leaving the device to
// the agent's waiting call returning (target ≤ 50 ms p50). The card is an
// ask_human question, so nothing but the decision's path is measured:
// the exposure's cookie and hash checks, the broker (with the window in
// which a decision on the computer would win), the audit row, and
// the answer back over MCP.
func BenchmarkPublicDecisionResumesCall(b *testing.B) {
	d := clitest.StartAsk(b)
	o := publicStart(b, d)
	ph := newPhone(b)
	if code, _, _ := ph.do("GET", o.Link, "", nil); code != 200 {
		b.Fatalf("open the link: %d", code)
	}
	s := d.MCP(b.Context(), "bench")
	took := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		done := make(chan outcome, 1)
		go func() {
			done <- callAsync(b.Context(), s, "ask_human", map[string]any{"question": "Ship it?"})
		}()
		c := ph.waitCard(o.URL)
		body, _ := json.Marshal(map[string]string{"decision": "allow", "hash": c.Hash, "message": "yes"})
		b.StartTimer()
		t0 := time.Now()
		if code, _, resp := ph.do("POST", o.URL+"cards/"+c.ID, string(body), nil); code != 200 {
			b.Fatalf("decide: %d %s", code, resp)
		}
		r := <-done
		took = append(took, time.Since(t0))
		if r.err != nil || r.res.IsError {
			b.Fatalf("the call: %+v %v", r.res, r.err)
		}
	}
	b.ReportMetric(medians.Ms(medians.Of(took)), "decide-to-resume-p50-ms")
}
