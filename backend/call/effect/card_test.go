package effect

import (
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/approval"
	"github.com/gatehouse-dev/gatehouse/backend/policy"
)

// TestCard: the card keeps the caller's header, says what the rules held
// and how many changes there are, lists at most maxCardChanges of them,
// and says when the changes are in the workspace already.
func TestCard(t *testing.T) {
	many := Set{}
	for i := range maxCardChanges + 3 {
		many.Changes = append(many.Changes, Change{Path: "f" + string(rune('a'+i%26)), Op: Create, Kind: File})
	}
	dec := policy.EffectDecision{Verdict: policy.Ask, Reason: "many files created", Findings: []string{"one finding"}}
	head := approval.Request{Session: "s", CallID: "c", Tool: "run_command"}
	tests := []struct {
		name     string
		cs       ChangeSets
		staged   bool
		changes  int
		findings []string
	}{
		{"staged", ChangeSets{Workspaces: []string{"/ws"}, Sets: []Set{{Changes: []Change{{Path: "a.txt", Op: Create, Kind: File}}}}, Uppers: []string{""}}, true, 1,
			[]string{"1 file created, 0 modified, 0 deleted", "one finding"}},
		{"checked", ChangeSets{Workspaces: []string{"/ws"}, Sets: []Set{{Changes: []Change{{Path: "a.txt", Op: Delete, Kind: File}}}}, Uppers: []string{""}}, false, 1,
			[]string{"0 files created, 0 modified, 1 deleted", "one finding", "this sandbox cannot stage commands"}},
		{"capped", ChangeSets{Workspaces: []string{"/ws"}, Sets: []Set{many}, Uppers: []string{""}}, false, maxCardChanges,
			[]string{"503 files created", "one finding", "this sandbox cannot stage", "the list shows the first 500 of 503 changes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := Card(head, tt.cs, dec, tt.staged, time.Time{}, strings.ToUpper)
			if req.Session != "s" || req.CallID != "c" || req.Kind != approval.KindEffect || req.Reason != dec.Reason || req.Staged != tt.staged {
				t.Fatalf("header %+v", req)
			}
			if len(req.Changes) != tt.changes {
				t.Errorf("%d changes listed, want %d", len(req.Changes), tt.changes)
			}
			if len(req.Findings) != len(tt.findings) {
				t.Fatalf("findings %q, want %d", req.Findings, len(tt.findings))
			}
			for i, f := range tt.findings {
				if !strings.HasPrefix(req.Findings[i], f) {
					t.Errorf("finding %d = %q, want it to start %q", i, req.Findings[i], f)
				}
			}
		})
	}
}

// TestChosenIn: with several workspaces a card names paths with the
// workspace's name first; each workspace gets back its own.
func TestChosenIn(t *testing.T) {
	chosen := map[string]bool{"api/a.go": true, "web/b.ts": true, "api/sub/c.go": true}
	got := ChosenIn(chosen, "/src/api", true)
	if len(got) != 2 || !got["a.go"] || !got["sub/c.go"] {
		t.Fatalf("api: %v", got)
	}
	if one := ChosenIn(chosen, "/src/api", false); len(one) != 3 {
		t.Fatalf("one workspace: %v", one)
	}
}
