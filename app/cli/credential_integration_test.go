//go:build integration

package cli_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
	"github.com/gatehouse-dev/gatehouse/backend/egress/tlstest"
)

// TestCredentialNote: a git push to a server that asks for a login, over
// HTTPS through Gatehouse's proxy (the domain allowed), finds none of the
// person's credentials in the sandbox and fails as a login without a
// password; its result says it was the sandbox, and what the person can
// do, on each backend.
func TestCredentialNote(t *testing.T) {
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			var asked atomic.Int32
			srv, caPEM := tlstest.Server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				asked.Add(1)
				w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
				http.Error(w, "log in", http.StatusUnauthorized)
			}), "git.example.test")
			base := t.TempDir()
			ws := filepath.Join(base, "ws")
			if err := os.MkdirAll(ws, 0o755); err != nil {
				t.Fatal(err)
			}
			target := strings.TrimPrefix(srv.URL, "https://")
			clitest.WriteConfig(t, ws, "config.toml", fmt.Sprintf("[sandbox]\nbackend = %q\n\n[network]\ntest_only_hosts = { \"git.example.test:443\" = %q }\n", backend, target))
			clitest.WriteConfig(t, ws, "policy.toml", "[[rule]]\naction = \"allow\"\ntool = \"network\"\ndomains = [\"git.example.test\"]\n")
			if err := os.WriteFile(filepath.Join(ws, "ca.pem"), caPEM, 0o644); err != nil {
				t.Fatal(err)
			}
			hostGitIn(t, ws, "init", "-q", "-b", "main")
			hostGitIn(t, ws, "commit", "-q", "--allow-empty", "-m", "first")
			d := clitest.StartWith(t, filepath.Join(base, "data"), ws)
			s := d.MCP(t.Context(), "push")
			r := call(t, s, "run_command", map[string]any{"argv": []string{"git", "-c", "http.sslCAInfo=ca.pem", "push", "https://git.example.test/me/app.git", "main"}})
			out := clitest.Text(t, r)
			if asked.Load() == 0 {
				t.Fatalf("the push never reached the server:\n%s", out)
			}
			if !r.IsError || !strings.Contains(out, "shows commands none of the person's credentials") {
				t.Fatalf("no note on the login the sandbox kept from the push:\n%s", out)
			}
		})
	}
}
