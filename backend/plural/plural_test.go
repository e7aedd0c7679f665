package plural

import "testing"

func TestCount(t *testing.T) {
	tests := []struct {
		n    int64
		one  string
		many string
		want string
	}{
		{0, "file", "files", "0 files"},
		{1, "file", "files", "1 file"},
		{2, "file", "files", "2 files"},
		{-1, "file", "files", "-1 files"},
		{1, "call is", "calls are", "1 call is"},
		{12, "call is", "calls are", "12 calls are"},
		{1, "entry", "entries", "1 entry"},
	}
	for _, tt := range tests {
		if got := Count(tt.n, tt.one, tt.many); got != tt.want {
			t.Errorf("Count(%d, %q, %q) = %q, want %q", tt.n, tt.one, tt.many, got, tt.want)
		}
	}
	if got := Count(uint64(1), "byte", "bytes"); got != "1 byte" {
		t.Errorf("Count(uint64(1)) = %q", got)
	}
}
