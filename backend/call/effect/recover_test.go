package effect

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRecoverStagedClearsDeadRuns: with no journal left, start-up throws
// away every staged layer a dead daemon left and keeps the journals'
// directory; with no stage directory it does nothing.
func TestRecoverStagedClearsDeadRuns(t *testing.T) {
	if got, err := RecoverStaged(t.Context(), ""); got != nil || err != nil {
		t.Fatalf("no stage dir: %v %v", got, err)
	}
	dir := t.TempDir()
	j := JournalPath(dir, "c_7", 1)
	if filepath.Dir(j) != filepath.Join(dir, journalsDir) || filepath.Base(j) != "c_7-1.json" {
		t.Fatalf("journal path %s", j)
	}
	dead := filepath.Join(dir, "sess", "c_7", "upper-0")
	if err := os.MkdirAll(dead, 0o700); err != nil {
		t.Fatal(err)
	}
	// Unreadable, as a command may leave its layers.
	if err := os.WriteFile(filepath.Join(dead, "f"), nil, 0o000); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dead, 0o000); err != nil {
		t.Fatal(err)
	}
	finished, err := RecoverStaged(t.Context(), dir)
	if err != nil || len(finished) != 0 {
		t.Fatalf("recover: %v %v", finished, err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || ents[0].Name() != journalsDir {
		t.Fatalf("left in the stage dir: %v", ents)
	}
}
