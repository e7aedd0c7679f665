package waitfor

import (
	"testing"
	"time"
)

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
