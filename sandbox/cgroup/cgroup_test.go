package cgroup

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestSweepRemovesOnlyOldRunDirs(t *testing.T) {
	parent := t.TempDir()
	old := filepath.Join(parent, "run-old")
	fresh := filepath.Join(parent, "run-fresh")
	other := filepath.Join(parent, "other")
	for _, d := range []string{old, fresh, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-time.Hour)
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(other, past, past); err != nil {
		t.Fatal(err)
	}
	sweep(parent)
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Error("old run cgroup kept")
	}
	for _, d := range []string{fresh, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s removed", d)
		}
	}
}
