// Package waitfor lets a test wait for a condition instead of sleeping for
// a guessed time: the test goes on as soon as the condition holds, and a
// condition that never comes fails the test with a name, not a hang or a
// flaky assertion further down.
package waitfor

import (
	"testing"
	"time"
)

// poll is short enough that a waiting test adds no noticeable latency, and
// long enough that polling does not compete with the code under test for
// the CPU.
const poll = 2 * time.Millisecond

// For calls cond every few milliseconds until it returns true. If timeout
// passes first it fails the test, saying it was waiting for what. cond runs
// on the caller's goroutine, so it may itself call t.Fatal.
func For(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", timeout, what)
		}
		time.Sleep(poll)
	}
}
