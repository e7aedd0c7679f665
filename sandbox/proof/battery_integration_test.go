//go:build integration

package proof

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/bwrap"
	"github.com/gatehouse-dev/gatehouse/sandbox/landlock"
	"github.com/gatehouse-dev/gatehouse/sandbox/launch/launchtest"
	"github.com/gatehouse-dev/gatehouse/sandbox/toolchain"
)

// batteryHome is a home holding a toolchain outside every system dir
// and the secrets a home holds, for the toolchain and secret rows.
func batteryHome(t *testing.T) (string, toolchain.Set) {
	t.Helper()
	home, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	for _, d := range []string{".cargo/bin", ".rustup/toolchains", ".ssh", ".aws"} {
		must(t, os.MkdirAll(filepath.Join(home, d), 0o755))
	}
	must(t, os.WriteFile(filepath.Join(home, ".cargo", "bin", "cargo"), []byte("#!/bin/sh\necho cargo\n"), 0o755),
		os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte("secret"), 0o600),
		os.WriteFile(filepath.Join(home, ".aws", "credentials"), []byte("secret"), 0o600),
		os.WriteFile(filepath.Join(home, ".netrc"), []byte("secret"), 0o600))
	tc, err := toolchain.Find(toolchain.Options{Path: []string{filepath.Join(home, ".cargo", "bin"), "/usr/bin", "/bin"}, Home: home})
	must(t, err)
	return home, tc
}

// runBattery runs every row against the backend mk builds for home,
// which must protect that home.
func runBattery(t *testing.T, mk func(home string) sandbox.Backend) {
	t.Helper()
	home, tc := batteryHome(t)
	b := mk(home)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	rows := Run(ctx, b, Options{Home: home, Toolchains: tc})
	for _, r := range rows {
		t.Logf("%-9s %-45s %-11s %s", r.Backend, r.Check, r.Outcome, r.Reason)
		if r.Outcome != Pass && !knownLimit(r) {
			t.Errorf("%s: %s: %s", r.Check, r.Outcome, r.Reason)
		}
	}
}

// knownLimit: Landlock has no PID namespace, so another session's command
// is listed (and nothing more, which the row checks).
func knownLimit(r Row) bool {
	return r.Backend == "landlock" && r.Check == CheckOtherSessions && r.Outcome == Limited
}

func TestBatteryBwrap(t *testing.T) {
	runBattery(t, func(home string) sandbox.Backend {
		b, err := bwrap.New(t.Context(), bwrap.Options{Home: home})
		if err != nil {
			t.Fatalf("bwrap backend unavailable (install bubblewrap and allow user namespaces): %v", err)
		}
		return b
	})
}

// The static helper gets its system directories from its own layout,
// cloned from the host's root, where the test binary (dynamically
// linked) needs bwrap to bind them before it can start: both must pass.
func TestBatteryBwrapStaticHelper(t *testing.T) {
	runBattery(t, func(home string) sandbox.Backend {
		b, err := bwrap.New(t.Context(), bwrap.Options{Home: home, Helper: launchtest.StaticHelper(t)})
		if err != nil {
			t.Fatalf("bwrap backend unavailable (install bubblewrap and allow user namespaces): %v", err)
		}
		return b
	})
}

func TestBatteryLandlock(t *testing.T) {
	runBattery(t, func(home string) sandbox.Backend {
		b, err := landlock.New(landlock.Options{Home: home})
		if err != nil {
			t.Fatalf("landlock backend unavailable: %v", err)
		}
		return b
	})
}
