package oneline

import "testing"

func TestOf(t *testing.T) {
	tests := []struct{ in, want string }{
		{"  first\nsecond\n", "first"},
		{"", "(none)"},
		{" \n\t", "(none)"},
		{"abcdefghij", "abcde…"},
	}
	for _, tt := range tests {
		if got := Of(tt.in, 5, "(none)"); got != tt.want {
			t.Errorf("Of(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
