package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/exposure"
	"github.com/gatehouse-dev/gatehouse/backend/portpeers"
)

// What public status and doctor print of what Gatehouse does not
// control: relays by header name, unknown programs by name and pid, and
// escaped, since a process names itself.
func TestPrintSuspected(t *testing.T) {
	for _, c := range []struct {
		name string
		seen exposure.Seen
		want []string
	}{
		{"quiet", exposure.Seen{}, nil},
		{"one relay", exposure.Seen{Relayed: &exposure.Relayed{At: time.Now(), Headers: []string{"Via"}, Method: "GET", Path: "/mcp", From: "127.0.0.1:5", Count: 1}},
			[]string{"1 request relayed", "carrying Via"}},
		{"a relay program", exposure.Seen{Processes: []portpeers.Peer{{PID: 42, Command: "socat", Exe: "/usr/bin/socat", From: "127.0.0.1:6"}}},
			[]string{"socat (pid 42, /usr/bin/socat)", "Gatehouse did not start it"}},
		{"a hostile name", exposure.Seen{Processes: []portpeers.Peer{{PID: 7, Command: "evil\x1b[2J", From: "127.0.0.1:7"}}},
			[]string{`evil\x1b[2J`}},
		{"another user's", exposure.Seen{Processes: []portpeers.Peer{{From: "127.0.0.1:8"}}},
			[]string{"cannot see"}},
	} {
		var b bytes.Buffer
		printSuspected(&b, c.seen)
		out := b.String()
		if len(c.want) == 0 && out != "" {
			t.Errorf("%s: printed %q", c.name, out)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: %q lacks %q", c.name, out, w)
			}
		}
		if strings.Contains(out, "\x1b") {
			t.Errorf("%s: a raw escape reached the terminal: %q", c.name, out)
		}
	}
}

// doctor's section says plainly when no daemon runs.
func TestDoctorPublicWithoutDaemon(t *testing.T) {
	var b bytes.Buffer
	printDoctorPublic(context.Background(), &b, t.TempDir())
	if !strings.Contains(b.String(), "GOING PUBLIC") || !strings.Contains(b.String(), "No daemon answered") {
		t.Fatalf("printed %q", b.String())
	}
}
