package secretholders

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

func redactSecret(s string) string { return strings.ReplaceAll(s, "SECRET", "[REDACTED]") }

func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The files whose content the redactor changes, below the folder asked
// about; in a work tree, of those git lists (not what it ignores); a
// file read once is read again only when it changes.
func TestBelow(t *testing.T) {
	for _, repo := range []bool{false, true} {
		root := t.TempDir()
		write(t, root, map[string]string{
			"plain.txt":       "nothing here\n",
			"cfg/app.yml":     "token: SECRET\n",
			"cfg/sub/key.txt": "SECRET\n",
			"bin.dat":         "SECRET\x00\x01",
			"ignored.log":     "SECRET\n",
			".gitignore":      "ignored.log\n",
		})
		want := []string{filepath.Join(root, "cfg/app.yml"), filepath.Join(root, "cfg/sub/key.txt")}
		if repo {
			if out, err := exec.Command("git", "-C", root, "init", "-q").CombinedOutput(); err != nil {
				t.Fatalf("git init: %v %s", err, out)
			}
		} else {
			want = append(want, filepath.Join(root, "ignored.log"))
		}
		slices.Sort(want)
		x := New(redactSecret)
		got, err := x.Below(t.Context(), root)
		slices.Sort(got)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("repo %v: Below = %q (%v), want %q", repo, got, err, want)
		}
		if got, _ := x.Below(t.Context(), filepath.Join(root, "cfg", "sub")); !slices.Equal(got, []string{filepath.Join(root, "cfg/sub/key.txt")}) {
			t.Errorf("repo %v: below cfg/sub: %q", repo, got)
		}
		// A change is seen; an unchanged file is not read again (its
		// cached answer stands even when its content is swapped under
		// the same size and time).
		plain := filepath.Join(root, "plain.txt")
		if err := os.WriteFile(plain, []byte("now a SECRET\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, _ := x.Below(t.Context(), root); !slices.Contains(got, plain) {
			t.Errorf("repo %v: a file that came to hold a secret is not listed: %q", repo, got)
		}
		st, _ := os.Stat(plain)
		if err := os.WriteFile(plain, []byte("now a ZZZZZZ\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_ = os.Chtimes(plain, time.Now(), st.ModTime())
		if got, _ := x.Below(t.Context(), root); !slices.Contains(got, plain) {
			t.Errorf("repo %v: an unchanged file was read again", repo)
		}
	}
}

// A folder with more files than the limit is not checked, in a work
// tree or outside one.
func TestBelowTooMany(t *testing.T) {
	defer func(n int, b int64) { maxFiles, maxBytes = n, b }(maxFiles, maxBytes)
	maxFiles = 3
	for _, repo := range []bool{false, true} {
		root := t.TempDir()
		write(t, root, map[string]string{"a": "", "b": "", "c/d": "", "c/e": ""})
		if repo {
			if out, err := exec.Command("git", "-C", root, "init", "-q").CombinedOutput(); err != nil {
				t.Fatalf("git init: %v %s", err, out)
			}
		}
		if _, err := New(redactSecret).Below(t.Context(), root); !errors.Is(err, ErrTooMany) {
			t.Errorf("repo %v: %v, want ErrTooMany", repo, err)
		}
	}
	maxFiles, maxBytes = 100, 10
	root := t.TempDir()
	write(t, root, map[string]string{"a": "0123456789ab", "b": "x"})
	if _, err := New(redactSecret).Below(t.Context(), root); !errors.Is(err, ErrTooMany) {
		t.Errorf("more to read than the budget: %v, want ErrTooMany", err)
	}
}

// A large file counts as holding a secret unread, unless it is binary.
func TestBelowLargeFiles(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"big.txt": strings.Repeat("plain text\n", maxRead/10),
		"big.bin": "\x00" + strings.Repeat("SECRET", maxRead/5),
	})
	got, err := New(redactSecret).Below(t.Context(), root)
	if err != nil || !slices.Equal(got, []string{filepath.Join(root, "big.txt")}) {
		t.Errorf("Below = %q (%v), want the large text file alone", got, err)
	}
}

// The answers kept across searches are bounded; forgotten ones are read
// again and answer the same.
func TestBelowForgetsPastItsBound(t *testing.T) {
	defer func(n int) { maxCached = n }(maxCached)
	maxCached = 3
	root := t.TempDir()
	write(t, root, map[string]string{"a": "SECRET", "b": "x", "c": "y", "d": "z", "e": "SECRET"})
	x := New(redactSecret)
	for range 2 {
		got, err := x.Below(t.Context(), root)
		if err != nil || !slices.Equal(got, []string{filepath.Join(root, "a"), filepath.Join(root, "e")}) {
			t.Fatalf("Below = %q, %v", got, err)
		}
		if len(x.files) > maxCached {
			t.Fatalf("%d answers kept, bound %d", len(x.files), maxCached)
		}
	}
}

// Warm reads a folder in the background, so the search that follows
// reads nothing it has not changed; a second Warm soon after reads
// nothing at all.
func TestWarm(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{"a": "SECRET", "b": "x", "c/d": "y"})
	var mu sync.Mutex
	reads := 0
	x := New(func(s string) string {
		mu.Lock()
		reads++
		mu.Unlock()
		return redactSecret(s)
	})
	count := func() int {
		mu.Lock()
		defer mu.Unlock()
		return reads
	}
	x.Warm(root)
	waitfor.For(t, 30*time.Second, "the folder to be read", func() bool { return count() == 3 })
	got, err := x.Below(t.Context(), root)
	if err != nil || !slices.Equal(got, []string{filepath.Join(root, "a")}) || count() != 3 {
		t.Fatalf("Below after Warm = %q, %v, %d reads", got, err, count())
	}
	write(t, root, map[string]string{"e": "SECRET"})
	x.Warm(root)
	if got, _ := x.Below(t.Context(), root); len(got) != 2 || count() != 4 {
		t.Fatalf("after a second Warm: %q, %d reads", got, count())
	}
}
