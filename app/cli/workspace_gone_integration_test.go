//go:build integration

package cli_test

import (
	"os"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// TestWorkspaceDeletedMidSession: a project deleted while its agent works
// gets a plain sentence for each call, and the daemon and the audit log go
// on.
func TestWorkspaceDeletedMidSession(t *testing.T) {
	d := clitest.Start(t)
	s := d.MCP(t.Context(), "gone")
	if r := call(t, s, "run_command", map[string]any{"argv": []string{"true"}}); r.IsError {
		t.Fatalf("first call: %s", clitest.Text(t, r))
	}
	if err := os.RemoveAll(d.Workspace); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"run_command", map[string]any{"argv": []string{"true"}}},
		{"list_dir", map[string]any{}},
		{"write_file", map[string]any{"path": "x.txt", "content": "x"}},
	} {
		r := call(t, s, c.tool, c.args)
		text := clitest.Text(t, r)
		if !r.IsError || !strings.Contains(text, "no longer exists") {
			t.Errorf("%s in a deleted workspace: %s", c.tool, text)
		}
	}
	if out, errOut, code := d.CLI(t.Context(), "audit", "verify"); code != 0 {
		t.Fatalf("audit verify: %s %s", out, errOut)
	}
}
