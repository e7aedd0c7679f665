package snapshot

import (
	"fmt"
	"log/slog"
	"testing"
	"time"
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

// A session's first checkpoint builds on the newest tree of its root from
// any session, through appends, prunes (the newest among them) and a
// reopen that reads the logs back in whatever order.
func TestIndexLatestTree(t *testing.T) {
	dir := t.TempDir()
	ix, err := openIndex(dir, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tree := func(n int) Hash { return Hash{byte(n), byte(n >> 8)} }
	add := func(n int, session string, roots ...string) {
		t.Helper()
		cp := &Checkpoint{ID: fmt.Sprintf("cp%d", n), Session: session, Time: base.Add(time.Duration(n) * time.Second)}
		for _, r := range roots {
			cp.Roots = append(cp.Roots, RootTree{Root: r, Tree: tree(n)})
		}
		if err := ix.append(session, logLine{Checkpoint: cp}); err != nil {
			t.Fatal(err)
		}
	}
	drop := func(n int, session string) {
		t.Helper()
		if err := ix.append(session, logLine{Drop: fmt.Sprintf("cp%d", n)}); err != nil {
			t.Fatal(err)
		}
	}
	check := func(step, session, root string, want int) {
		t.Helper()
		h, ok := ix.latestTree(session, root)
		if want < 0 {
			if ok {
				t.Errorf("%s: %s in %s has a tree, want none", step, root, session)
			}
			return
		}
		if !ok || h != tree(want) {
			t.Errorf("%s: %s in %s has tree %x, want checkpoint %d's", step, root, session, h[:2], want)
		}
	}
	add(1, "a", "/w", "/x")
	add(2, "b", "/w")
	add(3, "a", "/x")
	check("appended", "new", "/w", 2)
	check("appended", "new", "/x", 3)
	check("own session first", "a", "/w", 1)
	check("unknown root", "new", "/y", -1)
	drop(2, "b")
	check("newest pruned", "new", "/w", 1)
	add(4, "c", "/w")
	check("after a prune", "new", "/w", 4)
	drop(4, "c")
	drop(1, "a")
	check("every one pruned", "new", "/w", -1)
	add(5, "d", "/w")
	ix.close()
	if ix, err = openIndex(dir, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	defer ix.close()
	check("reopened", "new", "/w", 5)
	check("reopened", "new", "/x", 3)
}
