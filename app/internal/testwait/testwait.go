// Package testwait is the one polling wait of app's tests: the CLI's
// integration helpers (clitest.WaitFor) and the tray's and the desktop's
// unit tests wait for conditions through it, never for time.
package testwait

import (
	"testing"
	"time"
)

// For polls cond until it holds or timeout passes, then fails the test
// naming what it waited for.
func For(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	Until(t, timeout, what, func() (bool, string) { return cond(), "" })
}

// Until is For for a condition that can say where things stand (state);
// a timeout reports the last state it said.
func Until(t testing.TB, timeout time.Duration, what string, cond func() (ok bool, state string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for delay := time.Millisecond; ; delay = min(2*delay, 100*time.Millisecond) {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			if state != "" {
				t.Fatalf("timed out after %v waiting for %s (last: %s)", timeout, what, state)
			}
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(delay)
	}
}
