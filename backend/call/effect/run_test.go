package effect

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

// TestRunLayers: a run makes an upper and a work layer a workspace, reads
// its change sets from them, counts their bytes, and leaves nothing behind
// when discarded.
func TestRunLayers(t *testing.T) {
	root := t.TempDir()
	wss := []string{workspace(t), workspace(t)}
	r, err := NewRun(root, "c_1", wss, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Since.IsZero() || len(r.Uppers()) != 2 || r.Uppers()[1] != r.Upper(1) {
		t.Fatalf("run %+v, uppers %v", r, r.Uppers())
	}
	for _, d := range r.Uppers() {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			t.Fatalf("upper layer %s: %v", d, err)
		}
	}
	if err := os.WriteFile(filepath.Join(r.Upper(1), "new.txt"), []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	sets, err := r.Sets()
	if err != nil {
		t.Fatal(err)
	}
	if len(sets[0].Changes) != 0 || len(sets[1].Changes) != 1 || sets[1].Changes[0].Path != "new.txt" || sets[1].Changes[0].Op != Create {
		t.Fatalf("sets %+v", sets)
	}
	if n := r.Bytes(); n != 5 || SumBytes(sets) != 5 {
		t.Fatalf("bytes %d, sum %d; want 5", n, SumBytes(sets))
	}
	r.Discard()
	if _, err := os.Stat(filepath.Join(root, "c_1")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("layers left after Discard: %v", err)
	}
}

// TestUnshareLeavesTheWorkspaceItsFiles: after Apply and Unshare, every
// file the run landed has the workspace's name alone, even one whose
// second name in the layer was a conflict the apply skipped, so removing
// the layers later changes nothing a later run's conflict check reads (a
// file's change time moves when a link to it goes).
func TestUnshareLeavesTheWorkspaceItsFiles(t *testing.T) {
	ws := workspace(t)
	r, err := NewRun(t.TempDir(), "c_1", []string{ws}, nil)
	if err != nil {
		t.Fatal(err)
	}
	upper := r.Upper(0)
	if err := os.WriteFile(filepath.Join(upper, "new.txt"), []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// mod.txt, staged as a second name of new.txt, the person changes
	// meanwhile: a conflict, kept as theirs.
	if err := os.Link(filepath.Join(upper, "new.txt"), filepath.Join(upper, "mod.txt")); err != nil {
		t.Fatal(err)
	}
	edit := filepath.Join(ws, "mod.txt")
	waitfor.For(t, 5*time.Second, "the person's edit to carry a ctime after the run began", func() bool {
		os.WriteFile(edit, []byte("the person's edit\n"), 0o644)
		fi, err := os.Stat(edit)
		return err == nil && changedSince(fi, r.Since)
	})
	sets, err := r.Sets()
	if err != nil {
		t.Fatal(err)
	}
	a, err := Apply(t.Context(), ApplyRequest{Set: sets[0], Upper: upper, Workspace: ws, Since: r.Since})
	if err != nil || len(a.Paths) != 1 || a.Paths[0] != "new.txt" || len(a.Conflicts) != 1 {
		t.Fatalf("applied %+v: %v", a, err)
	}
	r.Unshare(0)
	var st unix.Stat_t
	if err := unix.Lstat(filepath.Join(ws, "new.txt"), &st); err != nil || st.Nlink != 1 {
		t.Errorf("new.txt: %d links after Unshare (%v), want 1", st.Nlink, err)
	}
}

// TestWatchBudgetStopsAFullRun: a run whose layers outgrow the budget is
// cancelled with ErrFull; one within it, or with no budget, is not.
func TestWatchBudgetStopsAFullRun(t *testing.T) {
	tests := []struct {
		name   string
		budget int64
		write  int
		full   bool
	}{
		{"over", 10, 100, true},
		{"within", 1 << 20, 100, false},
		{"no budget", 0, 100, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewRun(t.TempDir(), "c", []string{workspace(t)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(r.Upper(0), "big"), make([]byte, tt.write), 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, stop := context.WithCancelCause(t.Context())
			defer stop(nil)
			done := r.WatchBudget(ctx, tt.budget, stop)
			defer done()
			if tt.full {
				waitfor.For(t, 10*time.Second, "the budget to stop the run", func() bool { return ctx.Err() != nil })
				var full ErrFull
				if !errors.As(context.Cause(ctx), &full) || full.Budget != tt.budget || !strings.Contains(full.Error(), "budget") {
					t.Fatalf("cause %v, want ErrFull{%d}", context.Cause(ctx), tt.budget)
				}
				return
			}
			// The watch's first look comes after 250 ms: a run within its
			// budget is still going after several looks.
			waitfor.Never(t, time.Second, "the run stopped within its budget", func() bool { return ctx.Err() != nil })
		})
	}
}

// TestPassThrough: only build-output directories that exist and that git
// does not track pass through.
func TestPassThrough(t *testing.T) {
	ws := t.TempDir()
	for _, d := range []string{"node_modules", "dist", "src"} {
		if err := os.Mkdir(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "target"), nil, 0o644); err != nil { // a file, not a dir
		t.Fatal(err)
	}
	tracked := func(_, name string) bool { return name == "dist" }
	got := PassThrough([]string{ws}, tracked)
	sort.Strings(got)
	if len(got) != 1 || got[0] != filepath.Join(ws, "node_modules") {
		t.Fatalf("pass-through %v, want only node_modules", got)
	}
}
