//go:build integration

package cli_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
	"github.com/gatehouse-dev/gatehouse/backend/transport/mcpserver"
)

// asRun carries an MCP client's requests as the bridge of one agent run.
type asRun struct {
	run  string
	base http.RoundTripper
}

func (a asRun) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(mcpserver.RunHeader, a.run)
	return a.base.RoundTrip(r)
}

// claudeTranscript is a Claude Code transcript in the shape Claude Code
// writes (one line per content block, the usage repeated): 1,200 tokens.
const claudeTranscript = `{"type":"user","sessionId":"tok-run-1","message":{"role":"user","content":"build it"}}
{"type":"assistant","sessionId":"tok-run-1","message":{"id":"msg_a","role":"assistant","usage":{"input_tokens":100,"cache_creation_input_tokens":500,"cache_read_input_tokens":0,"output_tokens":100}}}
{"type":"assistant","sessionId":"tok-run-1","message":{"id":"msg_a","role":"assistant","usage":{"input_tokens":100,"cache_creation_input_tokens":500,"cache_read_input_tokens":0,"output_tokens":100}}}
{"type":"assistant","sessionId":"tok-run-1","message":{"id":"msg_b","role":"assistant","usage":{"input_tokens":50,"cache_creation_input_tokens":0,"cache_read_input_tokens":400,"output_tokens":50}}}
`

// TestTokenBudgetFromTheAgentsTranscript: the session's page shows the
// tokens the agent's own transcript records; past [limits] tokens the next
// call raises a limit card; a transcript cut short is "unknown" and
// raises none.
func TestTokenBudgetFromTheAgentsTranscript(t *testing.T) {
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	claudeDir := filepath.Join(base, "claude-config")
	transcript := filepath.Join(claudeDir, "projects", "-ws", "tok-run-1.jsonl")
	if err := os.MkdirAll(filepath.Dir(transcript), 0o700); err != nil {
		t.Fatal(err)
	}
	// Cut short first: the count is unknown, and nothing is stopped on it.
	if err := os.WriteFile(transcript, []byte(claudeTranscript[:len(claudeTranscript)-30]), 0o600); err != nil {
		t.Fatal(err)
	}
	clitest.WriteConfig(t, ws, "config.toml", "[limits]\ntokens = 1000\n")
	d := clitest.StartWithEnv(t, filepath.Join(base, "data"), ws, []string{"CLAUDE_CONFIG_DIR=" + claudeDir})
	s := d.MCPOver(t.Context(), "tokens", asRun{run: "claude:tok-run-1", base: http.DefaultTransport})
	if res := call(t, s, "run_command", map[string]any{"argv": []string{"echo", "one"}}); res.IsError {
		t.Fatalf("a call under an unknown token count was stopped: %s", clitest.Text(t, res))
	}
	sessions := d.Events("kind=session.start")
	id := sessions[len(sessions)-1]["session"].(string)
	page := func() map[string]any {
		_, body := d.Request("GET", "/api/v1/sessions/"+id, nil, d.Control())
		var m map[string]any
		if err := json.Unmarshal([]byte(body), &m); err != nil {
			t.Fatalf("%v: %s", err, body)
		}
		tok, _ := m["tokens"].(map[string]any)
		return tok
	}
	if tok := page(); tok == nil || tok["known"] != false || !strings.Contains(tok["why"].(string), "partial line") {
		t.Fatalf("tokens for a cut-short transcript = %v", tok)
	}

	// Whole: 1,200 tokens, past the budget of 1,000.
	if err := os.WriteFile(transcript, []byte(claudeTranscript), 0o600); err != nil {
		t.Fatal(err)
	}
	if tok := page(); tok["known"] != true || tok["input"].(float64) != 1050 || tok["output"].(float64) != 150 {
		t.Fatalf("tokens on the session's page = %v", tok)
	}
	done := make(chan outcome, 1)
	go func() {
		done <- callAsync(t.Context(), s, "run_command", map[string]any{"argv": []string{"echo", "two"}})
	}()
	card := d.WaitApproval(30 * time.Second)
	if card.Kind != "limit" || !strings.Contains(card.Reason, "1000 tokens") {
		t.Fatalf("card = %+v, want a limit card naming 1000 tokens", card)
	}
	if code := d.Decide(card.ID, "allow", "once", ""); code != 200 {
		t.Fatalf("decide = %d", code)
	}
	if o := <-done; o.err != nil || o.res.IsError {
		t.Fatalf("the call after extending the budget: %v %v", o.err, o.res)
	}
	_, limits := d.Request("GET", "/api/v1/sessions/"+id+"/limits", nil, d.Control())
	if !strings.Contains(limits, `"tokens":2400`) {
		t.Fatalf("the token budget after the card = %s, want doubled to 2400", limits)
	}
}
