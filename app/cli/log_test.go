package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/audit"
	"github.com/gatehouse-dev/gatehouse/backend/plural"
)

// A payload is printed whole unless it is very long; a cut says so and how
// much it left out, and --full never cuts.
func TestLogPayloadIsWholeOrSaysItWasCut(t *testing.T) {
	long := `{"argv":["echo","` + strings.Repeat("x", 2*maxLogPayload) + `"]}`
	mid := `{"argv":["echo","` + strings.Repeat("y", 1000) + `"]}`
	tests := []struct {
		name    string
		payload string
		full    bool
		whole   bool
	}{
		{"short", `{"tool":"read_file","path":"a.go"}`, false, true},
		{"longer than the old 200-character cut", mid, false, true},
		{"very long", long, false, false},
		{"very long with --full", long, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			p := eventPrinter{w: &out, full: tt.full}
			p.print(audit.Event{Seq: 7, Time: time.Now(), Kind: "tool.call", Actor: "agent:a", Session: "s1", Payload: json.RawMessage(tt.payload)})
			line := out.String()
			if strings.Count(line, "\n") != 1 {
				t.Fatalf("not one line: %q", line)
			}
			if tt.whole {
				if !strings.HasSuffix(line, tt.payload+"\n") {
					t.Fatalf("payload not printed whole: %.300q…", line)
				}
				return
			}
			left := len(tt.payload) - maxLogPayload
			want := "… [cut: " + plural.Count(left, "character", "characters") + " more; gatehouse log --full or --json prints it whole]\n"
			if !strings.HasSuffix(line, want) {
				t.Fatalf("a cut payload does not say so: …%q", line[len(line)-200:])
			}
			if !strings.Contains(line, tt.payload[:maxLogPayload]) {
				t.Fatal("the first part of the payload is missing")
			}
		})
	}
}

// Escaping comes before the cut, so a cut never splits an escape.
func TestLogPayloadCutKeepsEscapesWhole(t *testing.T) {
	payload := strings.Repeat("\x1b[31m", maxLogPayload)
	got := clipPayload([]byte(payload), false)
	if strings.ContainsRune(got, 0x1b) {
		t.Fatal("a raw escape reached the terminal")
	}
	if !strings.Contains(got, "[cut: ") {
		t.Fatalf("no cut note: …%q", got[len(got)-100:])
	}
}
