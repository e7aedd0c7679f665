package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/session"
)

// TestSessionRowMarksConfined: a confined session is tagged in the client
// column; others are not.
func TestSessionRowMarksConfined(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		name   string
		s      session.Info
		client string
	}{
		{"confined run", session.Info{ID: "s1", Client: "run", Confined: true}, "run [confined]"},
		{"confined, named", session.Info{ID: "s2", Client: "claude", ClientName: "claude-code", Confined: true}, "claude (claude-code) [confined]"},
		{"plain", session.Info{ID: "s3", Client: "claude", ClientName: "claude-code"}, "claude (claude-code)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.s.StartedAt, c.s.Status, c.s.Mode = start, session.Ended, "auto"
			cols := strings.Split(sessionRow(c.s), "\t")
			if len(cols) != len(strings.Split(sessionsHeader, "\t")) {
				t.Fatalf("%d columns for the header's %d: %q", len(cols), len(strings.Split(sessionsHeader, "\t")), cols)
			}
			if cols[1] != c.client {
				t.Errorf("client column %q, want %q", cols[1], c.client)
			}
		})
	}
}
