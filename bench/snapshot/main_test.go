package main

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// TestBenchRunsOnTinyWorkspace keeps the benchmark script from rotting: it
// runs every step on a tiny workspace. It checks that figures were
// produced, not how fast they are.
func TestBenchRunsOnTinyWorkspace(t *testing.T) {
	var out bytes.Buffer
	cfg := config{Files: 400, MB: 1, Runs: 1, FirstRuns: 1, Dir: t.TempDir()}
	rep, err := run(t.Context(), cfg, &out, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("bench failed: %v\n%s", err, out.String())
	}
	if rep.FirstOurs <= 0 || rep.FirstGit <= 0 || rep.RollbackOurs <= 0 || rep.SizeOurs <= 0 || rep.SizeGit <= 0 {
		t.Fatalf("missing figures: %+v", rep)
	}
	for _, want := range []string{"first checkpoint", "no-change checkpoint", "rollback of 100 files", "store size"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}
