//go:build integration

package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// TestBoundaryExplainsItself: a write outside the workspace and a read of
// a home file the sandbox hides reach the model with a Gatehouse sentence
// beside the bare errno, on both backends.
func TestBoundaryExplainsItself(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	canary := filepath.Join(home, ".gatehouse-test-boundary-"+filepath.Base(t.TempDir()))
	if err := os.WriteFile(canary, []byte("CANARY-5521"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(canary) })
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			base := t.TempDir()
			ws := filepath.Join(base, "ws")
			clitest.WriteConfig(t, ws, "config.toml", "[sandbox]\nbackend = \""+backend+"\"\n")
			d := clitest.StartWith(t, filepath.Join(base, "data"), ws)
			s := d.MCP(t.Context(), "boundary")
			r := call(t, s, "run_command", map[string]any{"argv": []string{"sh", "-c", "touch /etc/gatehouse-probe; cat " + canary}})
			text := clitest.Text(t, r)
			if strings.Contains(text, "CANARY-5521") {
				t.Fatalf("the sandbox showed the home file: %s", text)
			}
			// bwrap mounts the system read-only and shows no home; Landlock
			// refuses both with EACCES.
			wants := map[string][]string{
				"bwrap":    {"Gatehouse's sandbox kept /etc/gatehouse-probe read-only", "Gatehouse's sandbox hides " + canary},
				"landlock": {"Gatehouse's sandbox refused /etc/gatehouse-probe", "Gatehouse's sandbox refused " + canary},
			}[backend]
			for _, want := range wants {
				if !strings.Contains(text, want) {
					t.Errorf("result lacks %q:\n%s", want, text)
				}
			}
		})
	}
}
