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
