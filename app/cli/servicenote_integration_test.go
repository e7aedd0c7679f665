//go:build integration

package cli_test

import (
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// TestServiceOutOfReachNote: a command that connects to a service
// running on the person's machine (a database on the loopback, here a
// listener of the test's) reaches nothing, on each backend, and its
// result says that Gatehouse's sandbox kept it out of reach, rather than
// the client's "connection refused" alone, which an agent takes for a
// service that is down.
func TestServiceOutOfReachNote(t *testing.T) {
	for _, backend := range runBackends {
		t.Run(backend, func(t *testing.T) {
			ln, err := net.Listen("tcp4", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			var hits atomic.Int32
			go countAccepts(ln, &hits)
			port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
			d := startRunDaemon(t, backend, "")
			s := d.MCP(t.Context(), "service")
			// curl where there is one; busybox's wget in the container's
			// test image.
			script := `if command -v curl >/dev/null 2>&1; then curl -sS --max-time 5 --noproxy '*' "http://127.0.0.1:$1/"; else wget -q -Y off -O- "http://127.0.0.1:$1/"; fi`
			r, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{
				"argv": []string{"sh", "-c", script, "sh", port}}})
			if err != nil {
				t.Fatal(err)
			}
			out := clitest.Text(t, r)
			if !strings.Contains(out, "Gatehouse's sandbox lets a command reach only the servers it starts itself on 127.0.0.1") {
				t.Errorf("no note on the service out of reach:\n%s", out)
			}
			if n := hits.Load(); n != 0 {
				t.Errorf("the command reached the host's listener %d times", n)
			}
		})
	}
}
