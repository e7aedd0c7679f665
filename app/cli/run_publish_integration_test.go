//go:build integration

package cli_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// publishedServer serves the workspace's published.txt on port $1 until
// the workspace holds a file named stop: python3's http.server, or
// busybox's nc in the container's test image.
const publishedServer = `port=$1
if command -v python3 >/dev/null 2>&1; then python3 -m http.server "$port" --bind 127.0.0.1 >/dev/null 2>&1 &
else (while :; do printf 'HTTP/1.0 200 OK\r\n\r\nPUBLISHED-SERVER\n' | nc -l -p "$port" >/dev/null 2>&1; done) & fi
i=0; while [ ! -e stop ] && [ $i -lt 900 ]; do sleep 0.1; i=$((i+1)); done`

// TestRunPublishesAPort: `gatehouse run --publish PORT` makes a server
// the command starts on PORT inside (a dev server) answer the person's
// browser at http://127.0.0.1:PORT, on each backend: forwarded into the
// run's network namespace on bubblewrap and in the container, where the
// host cannot reach otherwise; under Landlock the server is on this
// machine's loopback already, and the run says so.
func TestRunPublishesAPort(t *testing.T) {
	type variant struct {
		name, backend string
		// fromEnv: GATEHOUSE_PUBLISH names the port, as for an agent
		// started by typing its name (a launcher takes no flags).
		fromEnv bool
	}
	var variants []variant
	for _, b := range runBackends {
		variants = append(variants, variant{b, b, false})
	}
	variants = append(variants, variant{"bwrap-from-the-environment", "bwrap", true})
	for _, v := range variants {
		backend := v.backend
		t.Run(v.name, func(t *testing.T) {
			d := startRunDaemon(t, backend, "")
			port := freePort(t)
			if err := os.WriteFile(filepath.Join(d.Workspace, "published.txt"), []byte("PUBLISHED-SERVER\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"--data", d.Data, "run", "--workspace", d.Workspace, "--publish", strconv.Itoa(port), "--", "sh", "-c", publishedServer, "sh", strconv.Itoa(port)}
			env := d.Env()
			if v.fromEnv {
				args = slices.Delete(args, 5, 7)
				env = append(env, "GATEHOUSE_PUBLISH="+strconv.Itoa(port))
			}
			cmd := exec.Command(d.Bin, args...)
			cmd.Env = env
			log, exited := clitest.Spawn(t, cmd, "gatehouse run")
			url := "http://127.0.0.1:" + strconv.Itoa(port) + "/published.txt"
			var got string
			clitest.WaitFor(t, 60*time.Second, "the run's server answering at "+url, func() bool {
				got = fetch(url)
				return strings.Contains(got, "PUBLISHED-SERVER")
			})
			// On this machine's loopback alone: its other addresses
			// (where the network would connect) are refused.
			for _, a := range otherAddrs(t) {
				if c, err := net.DialTimeout("tcp", net.JoinHostPort(a, strconv.Itoa(port)), time.Second); err == nil {
					c.Close()
					t.Errorf("the published port answered at %s", a)
				}
			}
			want := "published at http://127.0.0.1:" + strconv.Itoa(port)
			if backend == "landlock" {
				want = "under Landlock the agent's servers listen on this machine's loopback"
			}
			if !strings.Contains(log.String(), want) {
				t.Errorf("the run did not say %q: %s", want, log.String())
			}
			// The audit says which port answered outside the sandbox.
			if started := d.Events("kind=run.started"); len(started) != 1 || fmt.Sprint(started[0]["payload"].(map[string]any)["published"]) != fmt.Sprintf("[%d]", port) {
				t.Errorf("run.started rows: %v", started)
			}
			if err := os.WriteFile(filepath.Join(d.Workspace, "stop"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			select {
			case <-exited:
			case <-time.After(60 * time.Second):
				t.Fatal("the run did not end")
			}
			clitest.WaitFor(t, 10*time.Second, "the published port closed with the run", func() bool {
				c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
				if err == nil {
					c.Close()
				}
				return err != nil
			})
		})
	}
}

// TestRunRefusesABadPublish: a port in use on this machine, or no port,
// starts nothing and says why.
func TestRunRefusesABadPublish(t *testing.T) {
	d := startRunDaemon(t, "bwrap", "")
	busy, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	marker := filepath.Join(t.TempDir(), "ran")
	for _, c := range []struct{ port, want string }{
		{strconv.Itoa(busy.Addr().(*net.TCPAddr).Port), "is in use on this machine, so it cannot be published and nothing was started"},
		{"0", "--publish 0 is not a port (1 to 65535), so nothing was started"},
	} {
		_, errOut, code := runIn(t.Context(), t, d, "--publish", c.port, "--", "touch", marker)
		if code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("--publish %s: exit %d, stderr %q; want %q", c.port, code, errOut, c.want)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("--publish %s: the command ran", c.port)
		}
	}
	// Refused before the daemon opened a run: no session was left behind.
	if out, errOut, code := d.CLI(t.Context(), "sessions"); code != 0 || !strings.Contains(out, "No sessions yet") {
		t.Errorf("sessions after the refusals: exit %d %q %q", code, out, errOut)
	}
}

// fetch is url's body, or "" on any failure.
func fetch(url string) string {
	c := http.Client{Timeout: 3 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// otherAddrs are this machine's addresses but the loopback's.
func otherAddrs(t *testing.T) []string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			out = append(out, n.IP.String())
		}
	}
	if len(out) == 0 {
		t.Log("this machine has no address but the loopback's: nothing else to refuse")
	}
	return out
}
