package snapshot

import (
	"fmt"
	"log/slog"
	"testing"
)

// Many sessions' logs stay bounded in open files, and a log closed on the
// way is appended to again, every record kept across a reopen.
func TestIndexBoundsOpenLogs(t *testing.T) {
	dir := t.TempDir()
	ix, err := openIndex(dir, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	const sessions = maxOpenLogs * 3
	for round := range 2 {
		for i := range sessions {
			s := fmt.Sprintf("s%d", i)
			cp := &Checkpoint{ID: fmt.Sprintf("cp-%d-%d", i, round), Session: s}
			if err := ix.append(s, logLine{Checkpoint: cp}); err != nil {
				t.Fatal(err)
			}
			if n := len(ix.files); n > maxOpenLogs {
				t.Fatalf("%d logs open", n)
			}
		}
	}
	ix.close()
	again, err := openIndex(dir, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer again.close()
	for i := range sessions {
		if got := again.list(fmt.Sprintf("s%d", i)); len(got) != 2 {
			t.Errorf("session s%d has %d checkpoints after reopening, want 2", i, len(got))
		}
	}
}
