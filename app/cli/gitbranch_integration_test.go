//go:build integration

package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// TestDeleteABranch: `git branch -D` rewrites .git/config whole even for
// a branch with no settings there, to the same bytes. Under Landlock
// that once stopped the command as a change to a protected file; now it
// deletes the branch, is not stopped, and sets nothing aside. On
// bubblewrap git cannot replace the read-only config and says so; the
// note says nothing was lost. A branch whose settings live in the config
// still cannot take them out of it on either.
func TestDeleteABranch(t *testing.T) {
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			d := startRunDaemon(t, backend, "")
			ws := d.Workspace
			hostGitIn(t, ws, "init", "-q", "-b", "main")
			hostGitIn(t, ws, "commit", "-q", "--allow-empty", "-m", "first")
			hostGitIn(t, ws, "branch", "old")
			hostGitIn(t, ws, "branch", "tracked")
			hostGitIn(t, ws, "config", "branch.tracked.description", "kept in the config")
			cfgBefore, err := os.ReadFile(filepath.Join(ws, ".git", "config"))
			if err != nil {
				t.Fatal(err)
			}
			s := d.MCP(t.Context(), "branch")
			r := call(t, s, "run_command", map[string]any{"argv": []string{"git", "branch", "-D", "old"}})
			out := clitest.Text(t, r)
			if r.IsError || strings.Contains(out, "killed") || strings.Contains(out, "stays protected") {
				t.Fatalf("git branch -D of a branch with no settings:\n%s", out)
			}
			if backend == "bwrap" && !strings.Contains(out, "nothing was lost") {
				t.Errorf("no note that nothing was lost:\n%s", out)
			}
			if branches := hostGitIn(t, ws, "branch", "--list", "old"); branches != "" {
				t.Errorf("the branch is still there: %q", branches)
			}
			if asides, _ := filepath.Glob(filepath.Join(ws, ".git", ".gatehouse-changed-*")); len(asides) > 0 {
				t.Errorf("set aside: %v", asides)
			}
			// Its settings are the config's: they stay.
			call(t, s, "run_command", map[string]any{"argv": []string{"git", "branch", "-D", "tracked"}})
			if cfg, _ := os.ReadFile(filepath.Join(ws, ".git", "config")); string(cfg) != string(cfgBefore) {
				t.Errorf("the config changed:\n%s", cfg)
			}
		})
	}
}
