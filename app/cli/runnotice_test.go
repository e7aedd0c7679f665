package cli

import (
	"strings"
	"testing"
)

// The notice names each directory once, and only when one is locked.
func TestLandlockNotice(t *testing.T) {
	tests := []struct {
		name        string
		uncreatable []string
		want        string // a part of the notice; "" for none
	}{
		{"nothing locked", nil, ""},
		{"the project's root", []string{"/p/.envrc", "/p/.mcp.json"}, "made directly in /p (it lacks"},
		{"outside the root", []string{"/p/.envrc", "/q/.envrc"}, "made directly in /p and /q ("},
		{"two directories", []string{"/p/.envrc", "/p/.github/copilot-instructions.md", "/p/.mcp.json"}, "made directly in /p and .github (each lacks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := landlockNotice(tt.uncreatable)
			if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
				t.Errorf("landlockNotice(%q) = %q, want it to hold %q", tt.uncreatable, got, tt.want)
			}
		})
	}
}
