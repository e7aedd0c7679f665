package medians

import (
	"testing"
	"time"
)

func TestOf(t *testing.T) {
	for _, c := range []struct {
		in   []time.Duration
		want time.Duration
	}{
		{nil, 0},
		{[]time.Duration{3}, 3},
		{[]time.Duration{5, 1, 3}, 3},
		{[]time.Duration{4, 1, 3, 2}, 3},
	} {
		in := append([]time.Duration(nil), c.in...)
		if got := Of(c.in); got != c.want {
			t.Errorf("Of(%v) = %v, want %v", c.in, got, c.want)
		}
		for i := range in {
			if in[i] != c.in[i] {
				t.Fatalf("Of reordered its argument: %v", c.in)
			}
		}
	}
}

func TestMs(t *testing.T) {
	if got := Ms(1500*time.Microsecond + 999); got != 1.5 {
		t.Errorf("Ms = %v, want 1.5", got)
	}
}
