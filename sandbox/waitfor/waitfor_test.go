package waitfor

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestForReturnsOnceTheConditionHolds(t *testing.T) {
	n := 0
	For(t, time.Minute, "the third call", func() bool { n++; return n == 3 })
	if n != 3 {
		t.Fatalf("cond called %d times, want 3", n)
	}
}

// fatalTB records Fatalf instead of failing the real test; it stops For
// the way testing's Fatalf does, by not returning.
type fatalTB struct {
	testing.TB
	msg string
}

type stopped struct{}

func (f *fatalTB) Helper() {}
func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic(stopped{})
}

func TestForFailsNamingWhatItWaitedFor(t *testing.T) {
	tb := &fatalTB{TB: t}
	func() {
		defer func() {
			switch r := recover(); r {
			case stopped{}:
			case nil:
				t.Error("For returned although the condition never held")
			default:
				panic(r)
			}
		}()
		For(tb, 10*time.Millisecond, "a condition that never holds", func() bool { return false })
	}()
	if !strings.Contains(tb.msg, "a condition that never holds") {
		t.Fatalf("failure message %q does not say what it waited for", tb.msg)
	}
}

func TestUntil(t *testing.T) {
	n := 0
	if !Until(time.Second, time.Millisecond, func() bool { n++; return n == 3 }) {
		t.Fatal("a condition that comes true was not waited for")
	}
	if n != 3 {
		t.Errorf("checked %d times, want 3", n)
	}
	if Until(5*time.Millisecond, time.Millisecond, func() bool { return false }) {
		t.Error("a condition that never holds was reported held")
	}
}

// never runs Never on a fatalTB and reports its failure message, "" when
// it passed.
func never(t *testing.T, window time.Duration, what string, cond func() bool) string {
	t.Helper()
	tb := &fatalTB{TB: t}
	func() {
		defer func() {
			if r := recover(); r != nil && r != (stopped{}) {
				panic(r)
			}
		}()
		Never(tb, window, what, cond)
	}()
	return tb.msg
}

func TestNever(t *testing.T) {
	// Long enough that a failure found early is told from one found at
	// the end on a loaded machine.
	const window = 500 * time.Millisecond
	for _, c := range []struct {
		name string
		// cond is given how many times it was called before, and how long
		// since Never began.
		cond func(calls int, since time.Duration) bool
		fail bool
		// whole: Never must have watched until the window was over.
		whole bool
	}{
		{"never holds", func(int, time.Duration) bool { return false }, false, true},
		{"holds at once", func(int, time.Duration) bool { return true }, true, false},
		{"holds partway", func(_ int, d time.Duration) bool { return d > window/20 }, true, false},
		// What a sleep and one check at the end would miss.
		{"holds for a moment only", func(n int, _ time.Duration) bool { return n == 3 }, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			calls := 0
			start := time.Now()
			msg := never(t, window, "the thing happened", func() bool {
				ok := c.cond(calls, time.Since(start))
				calls++
				return ok
			})
			took := time.Since(start)
			switch {
			case c.fail && !strings.Contains(msg, "the thing happened"):
				t.Errorf("failure %q does not say what happened", msg)
			case !c.fail && msg != "":
				t.Errorf("failed although the condition never held: %s", msg)
			}
			if c.whole && (took < window || calls < 2) {
				t.Errorf("watched %v with %d checks, want the whole %v, checked throughout", took, calls, window)
			}
			if !c.whole && took >= window {
				t.Errorf("failed after %v, not when the condition held", took)
			}
		})
	}
}
