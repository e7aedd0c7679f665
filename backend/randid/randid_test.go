package randid

import (
	"strings"
	"testing"
)

func TestNew(t *testing.T) {
	a, b := New("a_", 8), New("a_", 8)
	if !strings.HasPrefix(a, "a_") || len(a) != 2+16 || a == b {
		t.Fatalf("New = %q, %q", a, b)
	}
}
