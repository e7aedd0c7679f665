package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/agentconfig"
)

func TestAgentTokenPath(t *testing.T) {
	dir := t.TempDir()
	shared := filepath.Join(dir, "agent.token")
	for _, c := range []struct{ agent, want string }{{"", shared}, {"claude", shared}} {
		if got, err := AgentTokenPath(dir, c.agent); err != nil || got != c.want {
			t.Fatalf("AgentTokenPath(%q) = %q, %v; want %q", c.agent, got, err, c.want)
		}
	}
	if _, err := agentconfig.EnsureToken(dir, agentconfig.Claude); err != nil {
		t.Fatal(err)
	}
	if got, _ := AgentTokenPath(dir, "claude"); got != filepath.Join(dir, "tokens", "claude.token") {
		t.Fatalf("own token not preferred: %s", got)
	}
	if got, _ := AgentTokenPath(dir, "codex"); got != shared {
		t.Fatalf("codex without its own token: %s", got)
	}
	if _, err := AgentTokenPath(dir, "../../etc/passwd"); err == nil {
		t.Fatal("an unknown agent name was accepted")
	}
	st, err := os.Stat(filepath.Join(dir, "tokens", "claude.token"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode: %v %v", st.Mode(), err)
	}
}
