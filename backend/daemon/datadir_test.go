package daemon

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/datadir"
)

// TestPrepareDataDirDropsShownCopies: a daemon that takes the lock
// starts with no copies shown in place of the person's files (a sandbox
// makes again those it needs), while one refused the lock touches none
// of the running daemon's.
func TestPrepareDataDirDropsShownCopies(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, datadir.ShownDir, "gitconfig-0123456789abcdef")
	if err := os.MkdirAll(filepath.Dir(stale), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stale, []byte("[user]\n"), 0o444); err != nil {
		t.Fatal(err)
	}
	lock, err := prepareDataDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if _, err := os.Stat(stale); err == nil {
		t.Error("a copy from before the start is still there")
	}
	live := filepath.Join(dir, datadir.ShownDir, "gitconfig-fedcba9876543210")
	if err := os.MkdirAll(filepath.Dir(live), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(live, []byte("[user]\n"), 0o444); err != nil {
		t.Fatal(err)
	}
	if second, err := prepareDataDir(dir); err == nil {
		second.Close()
		t.Fatal("a second daemon took the lock")
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("the refused daemon removed the running one's copy: %v", err)
	}
}
