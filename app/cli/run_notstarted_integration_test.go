//go:build integration

package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// TestRunThatDidNotStartSaysWhy: a run the daemon opened but whose
// sandbox could not be made (the container CLI refuses a flag the
// person's config gave it) ends its session saying the run did not
// start, and why, in the session list and the audit, not that an agent
// exited.
func TestRunThatDidNotStartSaysWhy(t *testing.T) {
	base := t.TempDir()
	ws := filepath.Join(base, "project")
	clitest.WriteConfig(t, ws, "config.toml", strings.Replace(containerConfig(t), "container_run_args = [", `container_run_args = ["--no-such-flag-7731", `, 1))
	d := clitest.StartWithEnv(t, filepath.Join(base, "data"), ws, nil)
	marker := filepath.Join(ws, "ran")
	_, errOut, code := runIn(t.Context(), t, d, "--", "touch", marker)
	// Podman's own message is on the run's stderr; the session and the
	// audit say what ended, and how.
	const why = "the container CLI exited with status 125"
	if code == 0 || !strings.Contains(errOut, "no-such-flag-7731") || !strings.Contains(errOut, why) {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command ran")
	}
	out, errOut, code := d.CLI(t.Context(), "sessions", "--json")
	if code != 0 {
		t.Fatalf("sessions: %s", errOut)
	}
	var list []struct {
		EndReason string `json:"end_reason"`
		Confined  bool   `json:"confined"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(list) != 1 || !strings.HasPrefix(list[0].EndReason, "the run did not start: ") || !strings.Contains(list[0].EndReason, why) {
		t.Errorf("sessions: %s", out)
	}
	ended := d.Events("kind=run.ended")
	if len(ended) != 1 || !strings.Contains(ended[0]["payload"].(map[string]any)["not_started"].(string), why) {
		t.Errorf("run.ended rows: %v", ended)
	}
}
