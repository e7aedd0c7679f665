package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/agentconfig"
)

// TestDoctorAgentRows installs each agent with a stand-in "gatehouse"
// binary and checks that doctor passes a hook that denies with the daemon
// down and fails one that lets the call through or crashes.
func TestDoctorAgentRows(t *testing.T) {
	answers := map[agentconfig.Agent]string{
		agentconfig.Claude: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no daemon"}}`,
		agentconfig.Codex:  `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no daemon"}}`,
		agentconfig.Gemini: `{"decision":"deny","reason":"no daemon"}`,
		agentconfig.Cursor: `{"permission":"deny","userMessage":"no daemon"}`,
	}
	for _, c := range []struct {
		name   string
		script func(a agentconfig.Agent) string
		pass   bool
	}{
		{"denies", func(a agentconfig.Agent) string { return "cat >/dev/null; echo '" + answers[a] + "'" }, true},
		{"exit 2", func(agentconfig.Agent) string { return "cat >/dev/null; echo no >&2; exit 2" }, true},
		{"allows", func(agentconfig.Agent) string { return `cat >/dev/null; echo '{}'` }, false},
		{"crashes", func(agentconfig.Agent) string { return "exit 1" }, false},
	} {
		for _, a := range agentconfig.Agents {
			if c.name == "exit 2" && a == agentconfig.Cursor {
				continue // Cursor's hooks answer in JSON only: exit 2 is not a refusal there
			}
			t.Run(c.name+"/"+string(a), func(t *testing.T) {
				home := t.TempDir()
				t.Setenv("HOME", home)
				for _, k := range []string{"CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME"} {
					t.Setenv(k, "")
				}
				bin := filepath.Join(t.TempDir(), "gatehouse")
				if err := os.WriteFile(bin, []byte("#!/bin/sh\n"+c.script(a)+"\n"), 0o755); err != nil {
					t.Fatal(err)
				}
				data := filepath.Join(t.TempDir(), "data")
				env, _ := agentconfig.FromOS()
				in := agentconfig.Installer{Env: env, DataDir: data}
				if _, err := in.Install(a, agentconfig.User, agentconfig.Wiring{Binary: bin, DataDir: data}); err != nil {
					t.Fatal(err)
				}
				rows := doctorAgents(t.Context(), data)
				if len(rows) != 2 || !rows[0].OK {
					t.Fatalf("rows %+v", rows)
				}
				if rows[1].OK != c.pass {
					t.Fatalf("probe row %+v, want pass=%v", rows[1], c.pass)
				}
			})
		}
	}
}

func TestDoctorNoAgents(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	if rows := doctorAgents(t.Context(), t.TempDir()); len(rows) != 0 {
		t.Fatalf("rows for a machine with no agents: %+v", rows)
	}
	var b strings.Builder
	printAgentRows(&b, nil)
	if !strings.Contains(b.String(), "gatehouse install") {
		t.Fatal(b.String())
	}
}
