//go:build integration

package cli_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// TestSessionBudget: a session that spends its call budget waits on a card;
// extending lets it go on, ending it stops the session. Both are audited.
func TestSessionBudget(t *testing.T) {
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	clitest.WriteConfig(t, ws, "config.toml", "[limits]\nmax_calls = 2\n")
	d := clitest.StartWith(t, filepath.Join(base, "data"), ws)
	s := d.MCP(t.Context(), "budget")
	for i := 0; i < 2; i++ {
		if r := call(t, s, "list_dir", map[string]any{}); r.IsError {
			t.Fatalf("call %d: %s", i, clitest.Text(t, r))
		}
	}
	done := make(chan outcome, 1)
	go func() { done <- callAsync(t.Context(), s, "list_dir", map[string]any{}) }()
	a := d.WaitApproval(clitest.CardWait)
	if a.Tool != "limit" || !strings.Contains(a.Reason, "2 tool calls") {
		t.Fatalf("limit card: %+v", a)
	}
	d.Decide(a.ID, "allow", "once", "")
	if o := <-done; o.err != nil || o.res.IsError {
		t.Fatalf("after extending: %v %v", o.err, o.res)
	}
	// The budget doubled to 6 calls; spend it and end the session this time.
	for i := 0; i < 3; i++ {
		call(t, s, "list_dir", map[string]any{})
	}
	go func() { done <- callAsync(t.Context(), s, "list_dir", map[string]any{}) }()
	a = d.WaitApproval(clitest.CardWait)
	d.Decide(a.ID, "deny", "once", "")
	if o := <-done; o.err == nil && !o.res.IsError {
		t.Fatal("call ran after the person ended the session")
	}
	ev := strings.Join(kinds(d.Events("kind=limit.")), ",")
	if ev != "limit.reached,limit.extended,limit.reached" {
		t.Fatalf("limit events: %s", ev)
	}
}

// TestLimitsChangeLive: the person lowers a live session's call budget from
// the control API and the next call hits it.
func TestLimitsChangeLive(t *testing.T) {
	d := clitest.Start(t)
	s := d.MCP(t.Context(), "live-limits")
	call(t, s, "list_dir", map[string]any{})
	sess := activeSession(t, d)
	h := d.Control()
	h["Content-Type"] = "application/json"
	resp, body := d.Request("GET", "/api/v1/sessions/"+sess+"/limits", nil, h)
	if resp.StatusCode != 200 || !strings.Contains(body, `"max_calls":5000`) {
		t.Fatalf("GET limits: %d %s", resp.StatusCode, body)
	}
	if resp, body := d.Request("POST", "/api/v1/sessions/"+sess+"/limits", jsonBody(map[string]int{"max_calls": -1}), h); resp.StatusCode != 400 {
		t.Fatalf("negative budget: %d %s", resp.StatusCode, body)
	}
	if resp, body := d.Request("POST", "/api/v1/sessions/"+sess+"/limits", jsonBody(map[string]int{"max_calls": 1}), h); resp.StatusCode != 200 {
		t.Fatalf("POST limits: %d %s", resp.StatusCode, body)
	}
	done := make(chan outcome, 1)
	go func() { done <- callAsync(t.Context(), s, "list_dir", map[string]any{}) }()
	a := d.WaitApproval(clitest.CardWait)
	if a.Tool != "limit" {
		t.Fatalf("card: %+v", a)
	}
	d.Decide(a.ID, "deny", "once", "")
	<-done
	if len(d.Events("kind=session.limits")) != 1 {
		t.Fatal("limit change not audited")
	}
	if resp, _ := d.Request("GET", "/api/v1/sessions/s_nope/limits", nil, h); resp.StatusCode != 409 {
		t.Fatalf("limits of an unknown session: %d", resp.StatusCode)
	}
}
