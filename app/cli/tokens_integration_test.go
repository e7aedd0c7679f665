//go:build integration

package cli_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/agenttest"
	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
	"github.com/gatehouse-dev/gatehouse/backend/transport/mcpserver"
)

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
	s := d.MCPOver(t.Context(), "tokens", clitest.WithHeader(mcpserver.RunHeader, "claude:tok-run-1", nil))
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
	if out, errOut, code := d.CLI(t.Context(), "sessions", id); code != 0 || !strings.Contains(out, "Tokens (as the agent recorded them): 1050 in, 150 out") {
		t.Fatalf("gatehouse sessions %s: exit %d\n%s%s", id, code, out, errOut)
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

// TestTokensFromRealAgents: each pinned agent CLI, installed with
// `gatehouse install` and driven by the scripted model (whose replies carry
// usage fields), writes its own transcript; the session's page shows the
// tokens Gatehouse reads from it.
func TestTokensFromRealAgents(t *testing.T) {
	for _, ag := range realAgents {
		t.Run(ag.name, func(t *testing.T) {
			base := t.TempDir()
			home := filepath.Join(base, "home")
			ws := filepath.Join(base, "ws")
			env := []string{"HOME=" + home, "CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude"), "CODEX_HOME=" + filepath.Join(home, ".codex")}
			d := clitest.StartWithEnv(t, filepath.Join(base, "data"), ws, env)
			model := agenttest.StartModel(t, ag.api, agenttest.Script{
				agenttest.Call(ag.tool, map[string]any{"argv": []string{"echo", "counted"}}),
				agenttest.Say("done"),
			})
			cli := pinnedAgent(t, ag.name+" CLI", ag.new, home, model)
			ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
			defer cancel()
			if out, errOut, code := clitest.Run(ctx, t, d.Bin, cli.Environ(), "--data", d.Data, "install", ag.name); code != 0 {
				t.Fatalf("gatehouse install %s: exit %d\n%s%s", ag.name, code, out, errOut)
			}
			res, err := ag.run(ctx, cli, d.Workspace, "Say something")
			if err != nil {
				t.Fatal(err)
			}
			if len(res.ToolResults()) == 0 {
				t.Fatalf("%s made no tool call\n%s\ndaemon log:\n%s", ag.name, res, d.Log())
			}
			var tok map[string]any
			var id string
			clitest.WaitFor(t, 30*time.Second, "the session's tokens known", func() bool {
				for _, e := range d.Events("kind=session.start") {
					id = e["session"].(string)
					_, body := d.Request("GET", "/api/v1/sessions/"+id, nil, d.Control())
					var m map[string]any
					if json.Unmarshal([]byte(body), &m) == nil {
						tok, _ = m["tokens"].(map[string]any)
						if tok != nil && tok["known"] == true {
							return true
						}
					}
				}
				return false
			})
			// The scripted model reports 1 token in and 1 out for each of
			// its two replies: exactly that, read from the agent's file.
			if in, out := tok["input"].(float64), tok["output"].(float64); in != 2 || out != 2 {
				t.Fatalf("%s: tokens %v, want 2 in and 2 out (two replies of 1 and 1)", ag.name, tok)
			}
			t.Logf("%s: session %s tokens %v", ag.name, id, tok)
		})
	}
}
