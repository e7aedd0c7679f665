package audit

import (
	"strings"
	"testing"
)

func TestParseKindFilter(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"", "", true},
		{"tool.call", "tool.call", true},
		{"tool.", "tool.", true},
		{"tool", "tool.", true},
		{"approval.decided", "approval.decided", true},
		// Every family the daemon writes.
		{"stage.unavailable", "stage.unavailable", true},
		{"effect.decision", "effect.decision", true},
		{"network", "network.", true},
		{"cache.cleared", "cache.cleared", true},
		{"agent.installed", "agent.installed", true},
		{"bogus", "", false},
		{"bogus.call", "", false},
		{"tool.Call", "", false},
		{"tool..call", "", false},
		{"tool.call ", "", false},
		{".call", "", false},
	}
	for _, tt := range tests {
		got, err := ParseKindFilter(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseKindFilter(%q) = %q, %v; want %q, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "agent, approval, cache") {
			t.Errorf("error does not list the families: %v", err)
		}
	}
}
