//go:build integration

package cli

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
	"github.com/gatehouse-dev/gatehouse/sandbox/proof"
)

// The real binary, as a user would run it: every backend here passes
// every row, and the table shows it.
func TestDoctorBinary(t *testing.T) {
	bin := clitest.Binary(t)
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
			defer cancel()
			var out, errb bytes.Buffer
			cmd := exec.CommandContext(ctx, bin, "doctor", "--backend", backend)
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			t.Logf("stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
			if err != nil {
				t.Fatalf("doctor --backend %s: %v", backend, err)
			}
			for _, c := range append(append([]string(nil), proof.Checks...), proof.ConfinedChecks...) {
				if !strings.Contains(out.String(), c) {
					t.Errorf("table lacks check %q", c)
				}
			}
			// Landlock has no PID namespace: another session's command is
			// listed, and the row says exactly what is and is not reachable.
			// Whole-agent mode runs on bubblewrap and Landlock: its rows
			// pass on both.
			pass, limit := strings.Count(out.String(), "PASS"), strings.Count(out.String(), "LIMIT")
			if pass < 2*len(proof.Checks)-1+2*len(proof.ConfinedChecks) || limit != 1 || !strings.Contains(out.String(), proof.OtherSessionsVisible) || strings.Contains(out.String(), "FAIL") {
				t.Errorf("want every row of bwrap and landlock and of whole-agent mode to PASS but Landlock's other-session row (LIMIT), saw %d PASS, %d LIMIT", pass, limit)
			}
			// Each probe is a run of its own: what a run says before it
			// starts (Landlock's notice) is said once, not once a probe.
			seen := map[string]bool{}
			for _, l := range strings.Split(errb.String(), "\n") {
				if l != "" && seen[l] {
					t.Errorf("stderr repeats %q", l)
				}
				seen[l] = true
			}
			_, runTable, _ := strings.Cut(out.String(), "Whole-agent mode")
			if strings.Count(runTable, "PASS") != 2*len(proof.ConfinedChecks) || !strings.Contains(runTable, "`gatehouse run` does not use seatbelt yet") {
				t.Errorf("the whole-agent table wants %d PASS rows of bwrap and of landlock, and seatbelt UNAVAILABLE:\n%s", len(proof.ConfinedChecks), runTable)
			}
		})
	}
}

// A backend that is named but missing fails closed with a fix.
func TestDoctorMissingBackendFailsClosed(t *testing.T) {
	bin := clitest.Binary(t)
	cmd := exec.Command(bin, "doctor", "--backend", "container", "--container-cli", "no-such-docker", "--container-image", "x")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("doctor with a missing backend exited 0:\n%s", out)
	}
	if !strings.Contains(string(out), "to fix") {
		t.Errorf("no fix in the message:\n%s", out)
	}
}
