package daemon

import (
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestPruneRedactedKeepsOnlyRecentCopies(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	old := now.Add(-redactedMaxAge - time.Hour)
	for _, c := range []struct {
		name string
		dir  bool
		when time.Time
	}{
		{"0a1b-id_rsa", false, old},
		{"2c3d-notes.txt", false, now.Add(-time.Minute)},
		{"run-r_old", true, old},
		{"run-r_live", true, now},
	} {
		p := filepath.Join(dir, c.name)
		if c.dir {
			if err := os.MkdirAll(filepath.Join(p), 0o700); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(p, []byte("[REDACTED]"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, c.when, c.when); err != nil {
			t.Fatal(err)
		}
	}
	pruneRedacted(dir, now, slog.New(slog.DiscardHandler))
	var left []string
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		left = append(left, e.Name())
	}
	if want := []string{"2c3d-notes.txt", "run-r_live"}; !slices.Equal(left, want) {
		t.Errorf("left %q, want %q", left, want)
	}
	pruneRedacted(filepath.Join(dir, "missing"), now, slog.New(slog.DiscardHandler))
}
