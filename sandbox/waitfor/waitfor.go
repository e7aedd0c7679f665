// Package waitfor is the one way this module's tests wait: for a condition,
// never for a guessed time. On a loaded machine a fixed sleep is too short,
// and on an idle one it wastes the rest; a wait goes on as soon as the
// condition holds, and one that never comes fails with a name, not a hang
// or a flaky assertion further down. It lives in sandbox/ so that every
// layer's tests may import it (dependencies point app → backend → sandbox).
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
	ForState(t, timeout, what, func() (bool, string) { return cond(), "" })
}

// ForState is For for a condition that can say where things stand: a
// timeout reports the last state it said.
func ForState(t testing.TB, timeout time.Duration, what string, cond func() (ok bool, state string)) {
	t.Helper()
	var state string
	if !Until(timeout, poll, func() (ok bool) { ok, state = cond(); return ok }) {
		if state != "" {
			t.Fatalf("waited %v for %s (last: %s)", timeout, what, state)
		}
		t.Fatalf("waited %v for %s", timeout, what)
	}
}

// Never checks cond every few milliseconds for the whole window and fails
// the test as soon as it holds, saying what happened: for a test that
// something does not happen in a time. Unlike a sleep and one check at the
// end, it catches what happens and is undone within the window, and fails
// when it happens rather than when the window is over.
func Never(t testing.TB, window time.Duration, what string, cond func() bool) {
	t.Helper()
	start := time.Now()
	if Until(window, poll, cond) {
		t.Fatalf("%s, %v into a %v window in which it must not", what, time.Since(start).Round(time.Millisecond), window)
	}
}

// Until checks cond, then again every interval, until it holds or timeout
// has passed, and reports whether it held: for a wait whose failure the
// test handles itself.
func Until(timeout, every time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(every)
	}
}
