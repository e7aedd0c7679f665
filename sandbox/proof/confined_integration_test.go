//go:build integration

package proof

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The whole-agent battery, as the doctor runs it, against a scratch home
// holding the canary: every row passes, on each backend.
func TestConfinedBattery(t *testing.T) {
	for _, backend := range ConfinedBackends {
		t.Run(backend, func(t *testing.T) { confinedBattery(t, backend) })
	}
}

func confinedBattery(t *testing.T, backend string) {
	self, err := os.Executable()
	must(t, err)
	self, err = filepath.EvalSymlinks(self)
	must(t, err)
	home, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	rows := RunConfined(ctx, ConfinedOptions{Backend: backend, Init: self, Home: home})
	if len(rows) != len(ConfinedChecks) {
		t.Fatalf("%d rows for %d checks", len(rows), len(ConfinedChecks))
	}
	for i, r := range rows {
		t.Logf("%-8s %-52s %-5s %s", r.Backend, r.Check, r.Outcome, r.Reason)
		if r.Check != ConfinedChecks[i] {
			t.Errorf("row %d is %q, want %q", i, r.Check, ConfinedChecks[i])
		}
		if r.Outcome != Pass {
			t.Errorf("%s: %s: %s", r.Check, r.Outcome, r.Reason)
		}
	}
	left, _ := os.ReadDir(home)
	for _, e := range left {
		t.Errorf("left in the home: %s", e.Name())
	}
}
