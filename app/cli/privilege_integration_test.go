//go:build integration

package cli_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// TestPrivilegeNote: the system's package manager, which cannot take its
// lock in the sandbox and asks "are you root?", gets a note that the
// sandbox runs commands without becoming root and shows the system
// read-only, and what works instead, on each backend.
func TestPrivilegeNote(t *testing.T) {
	if _, err := exec.LookPath("apt-get"); err != nil {
		t.Fatal("no apt-get on this machine: the suite runs on Debian 12, whose package manager this test drives")
	}
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			d := startRunDaemon(t, backend, "")
			s := d.MCP(t.Context(), "privilege")
			r := call(t, s, "run_command", map[string]any{"argv": []string{"apt-get", "install", "-y", "jq"}})
			out := clitest.Text(t, r)
			if !r.IsError || !strings.Contains(out, "runs commands without the right to become root") {
				t.Fatalf("no note on the package manager that could not become root:\n%s", out)
			}
		})
	}
}
