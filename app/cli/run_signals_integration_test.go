//go:build integration

package cli_test

import (
	"strings"
	"testing"
)

// TestRunInitOutlivesSignals: the agent's signals to the
// run's first process (its PID 1, which it may signal since it catches
// them) are dropped, whichever the runtime would otherwise exit or dump
// its stacks on: the run goes on and ends with the agent's own status.
// Not on Landlock, whose runs share the host's PID namespace (its PID 1
// is the machine's init).
func TestRunInitOutlivesSignals(t *testing.T) {
	for _, tc := range []struct{ backend, signals string }{
		{"bwrap", "HUP INT QUIT TERM PIPE ABRT SEGV SYS TRAP USR1 USR2 ALRM WINCH"},
		// In a container the first process passes HUP, TERM, USR1 and
		// USR2 on to the agent, as podman hands them to it.
		{"container", "INT QUIT PIPE ABRT SEGV SYS TRAP ALRM WINCH"},
	} {
		t.Run(tc.backend, func(t *testing.T) {
			d := startRunDaemon(t, tc.backend, "")
			script := `for s in ` + tc.signals + `; do kill -$s 1 || echo "NOT SENT $s"; done
sleep 0.3; echo STILL-RUNNING; exit 5`
			out, errOut, code := runIn(t.Context(), t, d, "--", "sh", "-c", script)
			if code != 5 || !strings.Contains(out, "STILL-RUNNING") || strings.Contains(out, "NOT SENT") {
				t.Fatalf("exit %d, want the agent's own 5\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
		})
	}
}
