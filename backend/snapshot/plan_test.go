package snapshot

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// Plan previews are computed in parallel and read blobs out of shared
// blocks; every item must still carry its own diff.
func TestPlanItemsCarryDiffs(t *testing.T) {
	ws, s := seededStore(t)
	pre := mustCheckpoint(t, s, Request{Session: "s", CallID: "c", Phase: Pre, Roots: []string{ws}})
	for i := range 20 {
		writeFile(t, ws, fmt.Sprintf("src/pkg%d/file%d.go", i%4, i), fmt.Sprintf("package p\n\nconst N%d = %d\n", i, 1000+i), 0o644)
	}
	mustCheckpoint(t, s, Request{Session: "s", CallID: "c", Phase: Post, Roots: []string{ws}})
	p, err := s.Plan(t.Context(), RollbackRequest{Session: "s", To: pre.ID})
	must(t, err)
	if len(p.Items) != 20 {
		t.Fatalf("%d items, want 20", len(p.Items))
	}
	for _, it := range p.Items {
		var i int
		fmt.Sscanf(filepath.Base(it.Path), "file%d.go", &i)
		want := fmt.Sprintf("-const N%d = %d\n+const N%d = %d\n", i, 1000+i, i, i)
		if !strings.Contains(it.Diff, want) {
			t.Fatalf("%s: diff %q lacks %q", it.Path, it.Diff, want)
		}
	}
}
