//go:build integration

package cli_test

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// nodeWithEnvProxy is a Node that reads the proxy variables when
// NODE_USE_ENV_PROXY is set (22.21 and later); `make test` puts one first
// on PATH (scripts/deps.sh installs it), so its absence fails the test.
func nodeWithEnvProxy(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("no node on PATH; run the suite with `make test`, which installs Node 22 and puts it first on PATH")
	}
	out, err := exec.Command(node, "-p", "process.versions.node").Output()
	if err != nil {
		t.Fatalf("%s: %v", node, err)
	}
	v := strings.Split(strings.TrimSpace(string(out)), ".")
	major, _ := strconv.Atoi(v[0])
	minor := 0
	if len(v) > 1 {
		minor, _ = strconv.Atoi(v[1])
	}
	if major < 22 || major == 22 && minor < 21 {
		t.Fatalf("%s is Node %s, which has no NODE_USE_ENV_PROXY; run the suite with `make test`, which puts Node 22 first on PATH", node, strings.TrimSpace(string(out)))
	}
	return node
}

// TestNodeFetchUsesTheProxy: a Node script's own fetch, which looks
// names up itself unless told to use the proxy variables, reaches an
// approved domain through Gatehouse's proxy in the sandbox.
func TestNodeFetchUsesTheProxy(t *testing.T) {
	node := nodeWithEnvProxy(t)
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			d, _ := startNetworkDaemon(t, backend)
			// The Node of `make test` lives in Gatehouse's own checkout,
			// which no sandbox shows: the workspace gets its own.
			local := filepath.Join(d.Workspace, "node")
			if err := os.Link(node, local); err != nil {
				copyFile(t, node, local)
			}
			s := d.MCP(t.Context(), "node")
			script := `fetch("https://pkgs.example.test/").then(r => r.text()).then(t => console.log(t)).catch(e => { console.log("fetch failed:", e.cause ? e.cause.code : e.message); process.exit(1) })`
			r := call(t, s, "run_command", map[string]any{"argv": []string{"sh", "-c", `NODE_EXTRA_CA_CERTS=ca.pem ./node -e "$1"`, "sh", script}})
			if out := clitest.Text(t, r); r.IsError || !strings.Contains(out, "hello from pkgs.example.test") {
				t.Fatalf("node's fetch:\n%s", out)
			}
			// Node prints nothing the sandbox's proxy setting causes (its
			// "EnvHttpProxyAgent is experimental" warning), in itself or in
			// a Node it starts; its other warnings still show.
			r = call(t, s, "run_command", map[string]any{"argv": []string{"./node", "-e",
				`process.emitWarning("own warning", {code: "OWN1"}); require("child_process").execFileSync(process.execPath, ["-e", "console.log('child ran')"], {stdio: "inherit"})`}})
			if out := clitest.Text(t, r); r.IsError || !strings.Contains(out, "child ran") || !strings.Contains(out, "own warning") || strings.Contains(out, "EnvHttpProxyAgent") {
				t.Fatalf("node's warnings:\n%s", out)
			}
		})
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestConfinedNodePrintsNoProxyWarning: a plain command under `gatehouse
// run` gets the proxy settings too, and its Node prints nothing for them.
func TestConfinedNodePrintsNoProxyWarning(t *testing.T) {
	node := nodeWithEnvProxy(t)
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			d := startRunDaemon(t, backend, "")
			local := filepath.Join(d.Workspace, "node")
			if err := os.Link(node, local); err != nil {
				copyFile(t, node, local)
			}
			out, errOut, code := runIn(t.Context(), t, d, "--", local, "-e", `console.log(process.env.NODE_USE_ENV_PROXY === "1" ? "proxied" : "not proxied")`)
			if code != 0 || strings.TrimSpace(out) != "proxied" || strings.Contains(errOut, "EnvHttpProxyAgent") {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
			}
		})
	}
}
