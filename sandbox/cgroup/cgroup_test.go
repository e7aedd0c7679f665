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

// A sweep lists the parent at most once per staleAfter: nothing younger
// than that could be removed anyway.
func TestSweepIsDueOncePerStalePeriod(t *testing.T) {
	c := sweepClock{last: map[string]time.Time{}}
	t0 := time.Now()
	steps := []struct {
		parent string
		at     time.Duration
		want   bool
	}{
		{"/a", 0, true},
		{"/a", time.Second, false},
		{"/b", time.Second, true},
		{"/a", staleAfter - time.Second, false},
		{"/a", staleAfter, true},
		{"/a", staleAfter + time.Second, false},
	}
	for _, s := range steps {
		if got := c.due(s.parent, t0.Add(s.at)); got != s.want {
			t.Errorf("due(%s, +%v) = %v, want %v", s.parent, s.at, got, s.want)
		}
	}
}
