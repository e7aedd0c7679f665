//go:build integration

package cli_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
	"github.com/gatehouse-dev/gatehouse/backend/egress/tlstest"
)

// waitNetworkCard waits for the next card, which must be a network one.
func waitNetworkCard(t *testing.T, d *clitest.Daemon) clitest.Approval {
	t.Helper()
	card := d.WaitApproval(clitest.CardWait)
	if card.Kind != "network" {
		t.Fatalf("a %s card came, not a network one: %+v", card.Kind, card)
	}
	return card
}

// startNetworkDaemon runs the real binary with the proxy, a test-only
// resolver that hands the made-up names to one local HTTPS server, and
// a policy that lets curl run and pkgs.example.test through.
func startNetworkDaemon(t *testing.T, backend string) (*clitest.Daemon, *httptest.Server) {
	t.Helper()
	names := []string{"pkgs.example.test", "other.example.test", "denied.example.test", "always.example.test"}
	srv, caPEM := tlstest.Server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from %s\n", r.Host)
	}), names...)
	target := strings.TrimPrefix(srv.URL, "https://")

	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	var hosts []string
	for _, n := range names {
		hosts = append(hosts, fmt.Sprintf("%q = %q", n+":443", target))
	}
	cfg := fmt.Sprintf("[sandbox]\nbackend = %q\n\n[network]\ntest_only_hosts = { %s }\n", backend, strings.Join(hosts, ", "))
	pol := "[[rule]]\naction = \"allow\"\ntool = \"run_command\"\nbinary = \"/usr/bin/curl\"\n\n" +
		"[[rule]]\naction = \"allow\"\ntool = \"network\"\ndomains = [\"pkgs.example.test\"]\n"
	clitest.WriteConfig(t, ws, "config.toml", cfg)
	clitest.WriteConfig(t, ws, "policy.toml", pol)
	if err := os.WriteFile(filepath.Join(ws, "ca.pem"), caPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	return clitest.StartWith(t, filepath.Join(base, "data"), ws), srv
}

func curl(args ...string) map[string]any {
	return map[string]any{"argv": append([]string{"curl", "-sS", "--max-time", "30", "--cacert", "ca.pem"}, args...)}
}

// The proxy end to end through the daemon, on bwrap and Landlock: an
// approved domain works from curl in the sandbox, an unapproved one puts
// a network card in front of the person (once, session or always), a
// denied one fails, going around the proxy fails, and every connection
// is in the audit.
func TestNetworkThroughTheProxy(t *testing.T) {
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			d, _ := startNetworkDaemon(t, backend)
			s := d.MCP(t.Context(), "netprobe")

			r := call(t, s, "run_command", curl("https://pkgs.example.test/"))
			if r.IsError || !strings.Contains(clitest.Text(t, r), "hello from pkgs.example.test") {
				t.Fatalf("approved domain: %s", clitest.Text(t, r))
			}

			// Unapproved: a card; allowed for the session, the next call
			// goes through without one.
			done := make(chan outcome, 1)
			go func() { done <- callAsync(t.Context(), s, "run_command", curl("https://other.example.test/")) }()
			card := waitNetworkCard(t, d)
			if card.Domain != "other.example.test" || card.Port != 443 || len(card.Argv) == 0 || card.Argv[0] != "curl" ||
				!strings.Contains(card.AlwaysRule, `tool = "network"`) {
				t.Fatalf("card %+v", card)
			}
			d.Decide(card.ID, "allow", "session", "")
			if o := <-done; o.err != nil || o.res.IsError || !strings.Contains(clitest.Text(t, o.res), "hello from other.example.test") {
				t.Fatalf("after allow: %v %s", o.err, clitest.Text(t, o.res))
			}
			if r := call(t, s, "run_command", curl("https://other.example.test/")); r.IsError {
				t.Fatalf("session grant: %s", clitest.Text(t, r))
			}

			// Denied: the command fails.
			go func() { done <- callAsync(t.Context(), s, "run_command", curl("https://denied.example.test/")) }()
			card = waitNetworkCard(t, d)
			d.Decide(card.ID, "deny", "once", "not this one")
			if o := <-done; o.err != nil || !o.res.IsError || !strings.Contains(clitest.Text(t, o.res), "403") ||
				!strings.Contains(clitest.Text(t, o.res), "gatehouse: Gatehouse refused the connection to denied.example.test:443: the person denied it: not this one") {
				t.Fatalf("denied: %v %s", o.err, clitest.Text(t, o.res))
			}

			// Always: the rule lands in the person's policy file.
			go func() { done <- callAsync(t.Context(), s, "run_command", curl("https://always.example.test/")) }()
			card = waitNetworkCard(t, d)
			d.Decide(card.ID, "allow", "always", "")
			if o := <-done; o.err != nil || o.res.IsError {
				t.Fatalf("always: %v %s", o.err, clitest.Text(t, o.res))
			}
			pol, _ := os.ReadFile(filepath.Join(clitest.ConfigDir(d.Workspace), "policy.toml"))
			if !strings.Contains(string(pol), "tool = \"network\"\ndomains = [\"always.example.test\"]") {
				t.Fatalf("policy file:\n%s", pol)
			}

			// Around the proxy: no name resolves, nothing connects.
			r = call(t, s, "run_command", curl("--noproxy", "*", "https://pkgs.example.test/"))
			if !r.IsError {
				t.Fatalf("--noproxy worked: %s", clitest.Text(t, r))
			}

			conns := d.Events("kind=network.connection")
			var seen []string
			for _, e := range conns {
				p, _ := e["payload"].(map[string]any)
				seen = append(seen, fmt.Sprintf("%v:%v up=%v down=%v refused=%v", p["domain"], p["port"], p["bytes_up"], p["bytes_down"], p["refused"] != nil))
			}
			all := strings.Join(seen, "\n")
			for _, want := range []string{"pkgs.example.test:443 up=", "other.example.test:443", "denied.example.test:443 up=0 down=0 refused=true"} {
				if !strings.Contains(all, want) {
					t.Errorf("audit lacks %q:\n%s", want, all)
				}
			}
			if strings.Contains(all, "pkgs.example.test:443 up=0") {
				t.Errorf("an approved connection recorded no bytes:\n%s", all)
			}
		})
	}
}

// TestDirectNetworkNote: a program that goes around the proxy (curl told
// to, ssh, which knows no HTTP proxy) finds no network, and its result
// says that was Gatehouse's sandbox, not the network, on each backend.
func TestDirectNetworkNote(t *testing.T) {
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			d, _ := startNetworkDaemon(t, backend)
			s := d.MCP(t.Context(), "direct")
			for _, argv := range [][]string{
				{"curl", "-sS", "--max-time", "10", "--noproxy", "*", "https://pkgs.example.test/"},
				{"ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=5", "git@pkgs.example.test", "true"},
			} {
				if _, err := exec.LookPath(argv[0]); err != nil {
					t.Fatalf("%s is not installed; scripts/deps.sh installs it", argv[0])
				}
				r := call(t, s, "run_command", map[string]any{"argv": argv})
				if out := clitest.Text(t, r); !r.IsError || !strings.Contains(out, "so this failure is the sandbox's, not the network's") {
					t.Errorf("%s: no note on the network it went around the proxy for:\n%s", argv[0], out)
				}
			}
		})
	}
}
