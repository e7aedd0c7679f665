//go:build integration

package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
	"github.com/gatehouse-dev/gatehouse/backend/agentconfig"
)

// TestDoctorAgentRowsRealHook: with the real `gatehouse hook`, every
// installed agent's row passes: the hook is wired and it blocks a native
// shell call when no daemon answers.
func TestDoctorAgentRowsRealHook(t *testing.T) {
	bin := clitest.Binary(t) // before HOME moves: go build needs its caches
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, k := range []string{"CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME"} {
		t.Setenv(k, "")
	}
	data := filepath.Join(t.TempDir(), "data")
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	env, _ := agentconfig.FromOS()
	in := agentconfig.Installer{Env: env, DataDir: data}
	for _, a := range agentconfig.Agents {
		if _, err := in.Wire(a, agentconfig.User, agentconfig.Wiring{Binary: bin, DataDir: data}); err != nil {
			t.Fatal(err)
		}
	}
	rows := doctorAgents(t.Context(), data)
	if len(rows) != 2*len(agentconfig.Agents) {
		t.Fatalf("rows: %+v", rows)
	}
	for _, r := range rows {
		if !r.OK {
			t.Errorf("%s %s: %s", r.Agent, r.Check, r.Reason)
		}
	}
}
