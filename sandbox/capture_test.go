package sandbox

import (
	"bytes"
	"strings"
	"testing"
)

func TestCapture(t *testing.T) {
	tests := []struct {
		name   string
		limit  int64
		writes []string
		want   string
		trunc  bool
	}{
		{"under cap", 16, []string{"hello"}, "hello", false},
		{"exact cap", 8, []string{"abcd", "efgh"}, "abcdefgh", false},
		{"head and tail", 8, []string{"0123456789", "abcdef"}, "012345" + TruncationMarker(8) + "ef", true},
		{"many small writes", 8, strings.Split("abcdefghijklmnop", ""), "abcdef" + TruncationMarker(8) + "op", true},
		{"one huge write", 8, []string{strings.Repeat("x", 100) + "yz"}, "xxxxxx" + TruncationMarker(94) + "yz", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var live bytes.Buffer
			c := NewCapture(tc.limit, &live)
			for _, w := range tc.writes {
				if n, err := c.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if got := string(c.Bytes()); got != tc.want {
				t.Errorf("Bytes = %q, want %q", got, tc.want)
			}
			if c.Truncated() != tc.trunc {
				t.Errorf("Truncated = %v", c.Truncated())
			}
			if live.String() != strings.Join(tc.writes, "") {
				t.Errorf("live got %q, not every byte", live.String())
			}
		})
	}
}

func TestCaptureReadFromBoundsMemory(t *testing.T) {
	c := NewCapture(1024, nil)
	n, err := c.ReadFrom(bytes.NewReader(bytes.Repeat([]byte("z"), 10<<20)))
	if err != nil || n != 10<<20 {
		t.Fatalf("ReadFrom = %d, %v", n, err)
	}
	if c.Total() != 10<<20 || len(c.Bytes()) > 1024+100 {
		t.Fatalf("total %d, kept %d", c.Total(), len(c.Bytes()))
	}
}
