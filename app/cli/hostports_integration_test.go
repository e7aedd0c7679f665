//go:build integration

package cli_test

import (
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// fetchScript fetches http://$1:$2/ bypassing any proxy: curl where there
// is one, busybox's wget in the container's test image.
const fetchScript = `if command -v curl >/dev/null 2>&1; then curl -sS --max-time 5 --noproxy '*' "http://$1:$2/"; else wget -q -Y off -O- "http://$1:$2/"; fi`

// TestHostPortsReachTheService: a service on the machine's loopback that
// the person lists in [network] host_ports (a database a project's tests
// need) answers a command, by 127.0.0.1 and by localhost, on each
// backend, and each connection is in the audit; a listed service that is
// down is said to be so; a listed port a network rule denies, and a port
// not listed, stay out of reach; the command cannot listen on the listed
// port itself.
func TestHostPortsReachTheService(t *testing.T) {
	for _, backend := range runBackends {
		t.Run(backend, func(t *testing.T) {
			svc, err := serveText(t, "127.0.0.1:0", "rows from the person's service")
			if err != nil {
				t.Fatal(err)
			}
			port := svc.Addr().(*net.TCPAddr).Port
			other, err := net.Listen("tcp4", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			var hits atomic.Int32
			go countAccepts(other, &hits)
			// A listed port whose service is down.
			down, err := net.Listen("tcp4", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			downPort := down.Addr().(*net.TCPAddr).Port
			down.Close()
			// A listed port that a network rule of the person's denies.
			denied, err := net.Listen("tcp4", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer denied.Close()
			deniedPort := denied.Addr().(*net.TCPAddr).Port
			go countAccepts(denied, &hits)
			base := t.TempDir()
			ws := filepath.Join(base, "ws")
			clitest.WriteConfig(t, ws, "config.toml", backendConfig(t, backend)+fmt.Sprintf("[network]\nhost_ports = [%d, %d, %d]\n", port, downPort, deniedPort))
			clitest.WriteConfig(t, ws, "policy.toml", fmt.Sprintf("[[rule]]\naction = \"deny\"\ntool = \"network\"\ndomains = [\"localhost\"]\nports = [%d]\nreason = \"the staging database is off limits\"\n", deniedPort))
			d := clitest.StartWithEnv(t, filepath.Join(base, "data"), ws, nil)
			s := d.MCP(t.Context(), "hostports")
			run := func(argv ...string) (string, bool) {
				r, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"argv": argv}})
				if err != nil {
					t.Fatal(err)
				}
				return clitest.Text(t, r), r.IsError
			}
			for _, host := range []string{"127.0.0.1", "localhost"} {
				if out, _ := run("sh", "-c", fetchScript, "sh", host, strconv.Itoa(port)); !strings.Contains(out, "rows from the person's service") {
					t.Errorf("the listed service did not answer at %s:\n%q", host, out)
				}
			}
			if out, _ := run("sh", "-c", fetchScript, "sh", "127.0.0.1", strconv.Itoa(downPort)); !strings.Contains(out, fmt.Sprintf("Gatehouse could not connect the command to the service on this machine: nothing answers on port %d", downPort)) {
				t.Errorf("no note on the listed service that is down:\n%s", out)
			}
			if out, _ := run("sh", "-c", fetchScript, "sh", "127.0.0.1", strconv.Itoa(deniedPort)); !strings.Contains(out, "the staging database is off limits") {
				t.Errorf("no note on the listed port a rule denies:\n%s", out)
			}
			otherPort := strconv.Itoa(other.Addr().(*net.TCPAddr).Port)
			out, _ := run("sh", "-c", fetchScript, "sh", "127.0.0.1", otherPort)
			if n := hits.Load(); n != 0 {
				t.Errorf("a port not listed, or one a rule denies, was reached %d times:\n%s", n, out)
			}
			// The listed port is Gatehouse's inside the sandbox: the command
			// cannot put a server of its own in the service's place.
			squat := `if command -v python3 >/dev/null 2>&1; then python3 -c 'import socket,sys; s=socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(); print("listening")' "$1"; else timeout 2 nc -l -p "$1" 127.0.0.1 && echo listening; fi`
			if out, _ := run("sh", "-c", squat, "sh", strconv.Itoa(port)); strings.Contains(out, "listening") {
				t.Errorf("the command listened on the listed port itself:\n%s", out)
			}

			var seen []string
			for _, e := range d.Events("kind=network.connection") {
				p, _ := e["payload"].(map[string]any)
				seen = append(seen, fmt.Sprintf("%v %v:%v down>0=%v refused=%v", p["method"], p["domain"], p["port"], p["bytes_down"] != float64(0), p["refused"] != nil))
			}
			want := fmt.Sprintf("HOST localhost:%d down>0=true refused=false", port)
			if n := strings.Count(strings.Join(seen, "\n"), want); n < 2 {
				t.Errorf("the audit has %d records of %q, want 2:\n%s", n, want, strings.Join(seen, "\n"))
			}
		})
	}
}

// TestRunReachesHostPorts: under `gatehouse run` the confined agent and
// what it starts (an MCP server for the person's database, here a shell)
// reach a listed service as its commands do, by 127.0.0.1 and by
// localhost, each connection in the audit with the process that made it;
// the agent cannot listen on the listed port itself.
func TestRunReachesHostPorts(t *testing.T) {
	for _, backend := range runBackends {
		t.Run(backend, func(t *testing.T) {
			svc, err := serveText(t, "127.0.0.1:0", "rows from the person's service")
			if err != nil {
				t.Fatal(err)
			}
			port := strconv.Itoa(svc.Addr().(*net.TCPAddr).Port)
			d := startRunDaemon(t, backend, "[network]\nhost_ports = ["+port+"]\n")
			squat := `if command -v python3 >/dev/null 2>&1; then python3 -c 'import socket,sys; s=socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(); print("squatted")' "$1" 2>/dev/null; else timeout 2 nc -l -p "$1" 127.0.0.1 2>/dev/null && echo squatted; fi; true`
			script := `set -- 127.0.0.1 "$1"; ` + fetchScript + `; echo; set -- localhost "$2"; ` + fetchScript + `; echo; ` + "sh -c '" + strings.ReplaceAll(squat, "'", `'"'"'`) + "' sh \"$2\""
			out, errOut, code := runIn(t.Context(), t, d, "--", "sh", "-c", script, "sh", port)
			if n := strings.Count(out, "rows from the person's service"); n != 2 || code != 0 {
				t.Errorf("the service answered %d times of 2 (exit %d):\n%s\n%s", n, code, out, errOut)
			}
			if strings.Contains(out, "squatted") {
				t.Errorf("the agent listened on the listed port itself:\n%s", out)
			}
			var seen []string
			for _, e := range d.Events("kind=network.connection") {
				p, _ := e["payload"].(map[string]any)
				seen = append(seen, fmt.Sprintf("%v %v:%v process=%v refused=%v", p["method"], p["domain"], p["port"], p["process"], p["refused"] != nil))
			}
			all := strings.Join(seen, "\n")
			if n := strings.Count(all, "HOST localhost:"+port+" process="); n != 2 || strings.Contains(all, "refused=true") || strings.Contains(all, "process=<nil>") || strings.Contains(all, "process=unknown") {
				t.Errorf("want 2 host connections with their process, none refused:\n%s", all)
			}
		})
	}
}

// countAccepts accepts on ln until it closes, counting each connection in
// n and closing it.
func countAccepts(ln net.Listener, n *atomic.Int32) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		n.Add(1)
		c.Close()
	}
}
