//go:build integration

package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// tunnelDaemon starts a daemon whose [public] tunnel is script, written
// to a file of its own, with args after it.
func tunnelDaemon(t *testing.T, script string, args ...string) *clitest.Daemon {
	t.Helper()
	prog := filepath.Join(t.TempDir(), "mytunnel")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	argv, _ := json.Marshal(append([]string{prog}, args...))
	return publicDaemon(t, "[public]\ntunnel = "+string(argv)+"\ntunnel_wait_s = 5\n")
}

// gone: no process pid, or only its zombie.
func gone(pid int) bool {
	f, ok := procStat(pid)
	return !ok || f[0] == "Z"
}

// A tunnel program that exits at once, whether or not it printed a URL,
// fails `public start` with one sentence that says so and what it said
// last; no exposure is left open.
func TestPublicTunnelThatExitsAtOnce(t *testing.T) {
	for _, c := range []struct{ name, script string }{
		{"silent", "echo 'mytunnel: no account is set up' >&2\nexit 3\n"},
		{"after a URL", "echo 'forwarding https://tunnel.example.test'\necho 'mytunnel: gave up' >&2\nexit 1\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := tunnelDaemon(t, c.script, "{addr}")
			out, errOut, code := d.CLI(t.Context(), "public", "start")
			// The sentence is the first line (a debug build repeats it as detail).
			msg, _, _ := strings.Cut(errOut, "\n")
			if code == 0 || !strings.HasPrefix(msg, "gatehouse: the tunnel command ") || !strings.Contains(msg, "exited at once") || !strings.Contains(msg, "its last line was: mytunnel:") {
				t.Fatalf("public start with a tunnel that exits: exit %d, stdout %q, stderr %q; want one sentence saying it exited", code, out, errOut)
			}
			if strings.Contains(out+errOut, "?t=") {
				t.Fatalf("a link was shown for an exposure that did not open: %q %q", out, errOut)
			}
			if out, _, _ := d.CLI(t.Context(), "public", "status"); !strings.Contains(out, "No exposure is open") {
				t.Fatalf("status after the tunnel failed: %q", out)
			}
			if ev := d.Events("kind=exposure.opened"); len(ev) != 0 {
				t.Fatalf("an exposure.opened row for an exposure that did not open: %v", ev)
			}
		})
	}
}

// A tunnel program that prints its public URL carries the link, status
// shows it, and stopping the exposure stops the program and what it
// started (its process group).
func TestPublicTunnelThatPrintsAURL(t *testing.T) {
	base := t.TempDir()
	childPID := filepath.Join(base, "child.pid")
	d := tunnelDaemon(t, `sleep 600 &
echo $! > "$2"
echo "mytunnel: forwarding https://tunnel.example.test/ -> $1"
wait
`, "{addr}", childPID)
	o := publicStart(t, d)
	if o.Tunnel == nil || o.Tunnel.PID == 0 || o.Tunnel.Note != "" || !strings.HasPrefix(o.Link, "https://tunnel.example.test/e/"+o.ID+"/?t=") {
		t.Fatalf("the exposure through a tunnel that printed its URL: link %q, tunnel %+v", o.Link, o.Tunnel)
	}
	out, _, _ := d.CLI(t.Context(), "public", "status")
	if !strings.Contains(out, "(pid "+strconv.Itoa(o.Tunnel.PID)+") at https://tunnel.example.test") ||
		!strings.Contains(out, "page:        https://tunnel.example.test/e/"+o.ID+"/") {
		t.Fatalf("status does not show the tunnel's URL: %q", out)
	}
	var child int
	clitest.WaitFor(t, 10*time.Second, "the tunnel's child to write its pid", func() bool {
		b, _ := os.ReadFile(childPID)
		child, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return child > 0
	})
	if gone(o.Tunnel.PID) || gone(child) {
		t.Fatal("the tunnel program is not running while its exposure is open")
	}
	if _, errOut, code := d.CLI(t.Context(), "public", "stop"); code != 0 {
		t.Fatalf("stop: exit %d, %q", code, errOut)
	}
	clitest.WaitFor(t, 10*time.Second, "the tunnel program and its child to stop with the exposure", func() bool {
		return gone(o.Tunnel.PID) && gone(child)
	})
}
