// Package secretholders finds the files of a folder whose content holds
// something the daemon redacts (a private key, a token, a value of the
// workspace's secret files), for a search the hook cannot redact: an
// agent's own search tool runs in its process, outside the sandbox, and
// prints matching lines as they are, so the hook leaves these files out
// of it by name.
//
// Each file's answer is kept by its size and modification time, so a
// folder's second search reads only what changed (up to maxCached
// files); Warm reads a folder ahead of its first search. A value the
// redactor learns after a file was read is seen in that file when it
// next changes.
package secretholders

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// maxRead: a file larger than this counts as holding a secret, unread
// (a search would print its lines, and they cannot be checked whole).
const maxRead = 8 << 20

// maxFiles: a folder with more files is not checked (Below says so);
// nor one whose files to read come to more than maxBytes.
var (
	maxFiles       = 50_000
	maxBytes int64 = 1 << 30
)

// maxCached bounds the answers kept across searches (a few workspaces'
// worth, about 100 bytes each); past it they are forgotten and read again
// as searches need them.
var maxCached = 4 * maxFiles

// ErrTooMany: the folder holds more files, or more to read, than can be
// checked.
var ErrTooMany = errors.New("too many files to check for secrets")

// Index answers Below. It is safe for concurrent use.
type Index struct {
	redact func(string) string
	mu     sync.Mutex
	files  map[string]entry
	warmed map[string]time.Time // folders Warm last read, and when
}

type entry struct {
	size, mtime int64
	holds       bool
}

// New is an Index that asks redact (the daemon's redactor) of each
// file's content.
func New(redact func(string) string) *Index {
	return &Index{redact: redact, files: map[string]entry{}, warmed: map[string]time.Time{}}
}

// warmEvery is how often Warm reads a folder again; warmLimit bounds one
// such read.
const (
	warmEvery = 10 * time.Minute
	warmLimit = 2 * time.Minute
)

// Warm reads dir in the background, as Below would, unless it did in the
// last warmEvery: an agent's first search of a large repository then
// need not wait seconds for every file to be read (the answers are kept).
func (x *Index) Warm(dir string) {
	x.mu.Lock()
	if time.Since(x.warmed[dir]) < warmEvery {
		x.mu.Unlock()
		return
	}
	x.warmed[dir] = time.Now()
	x.mu.Unlock()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), warmLimit)
		defer cancel()
		_, _ = x.Below(ctx, dir) // a search that follows says what went wrong
	}()
}

// Below is the files below dir, absolute, whose content holds a secret:
// of those git lists there (tracked, and untracked but not ignored: what
// a search that honours .gitignore reads), or of every file below dir
// outside a work tree.
func (x *Index) Below(ctx context.Context, dir string) ([]string, error) {
	paths, err := listed(ctx, dir)
	if err != nil {
		return nil, err
	}
	var holders []string
	budget := maxBytes
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if budget < 0 {
			return nil, ErrTooMany
		}
		if x.holds(p, &budget) {
			holders = append(holders, p)
		}
	}
	return holders, nil
}

// holds answers for one file, from the cache while it is unchanged;
// what it reads is taken from budget.
func (x *Index) holds(p string, budget *int64) bool {
	st, err := os.Lstat(p)
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	x.mu.Lock()
	e, ok := x.files[p]
	x.mu.Unlock()
	if ok && e.size == st.Size() && e.mtime == st.ModTime().UnixNano() {
		return e.holds
	}
	e = entry{size: st.Size(), mtime: st.ModTime().UnixNano(), holds: x.read(p, st.Size(), budget)}
	x.mu.Lock()
	if len(x.files) >= maxCached {
		clear(x.files)
	}
	x.files[p] = e
	x.mu.Unlock()
	return e.holds
}

func (x *Index) read(p string, size int64, budget *int64) bool {
	f, err := os.Open(p)
	if err != nil {
		return false // nor can the agent's search read it
	}
	defer f.Close()
	head := make([]byte, 8<<10)
	n, _ := io.ReadFull(f, head)
	*budget -= int64(n)
	if bytes.IndexByte(head[:n], 0) >= 0 {
		return false // binary: a search names it, and prints none of it
	}
	if size > maxRead {
		return true
	}
	rest, err := io.ReadAll(io.LimitReader(f, maxRead))
	*budget -= int64(len(rest))
	if err != nil {
		return false
	}
	s := string(head[:n]) + string(rest)
	return x.redact(s) != s
}

// listed is what a search of dir reads: git's list in a work tree, a
// walk elsewhere; at most maxFiles.
func listed(ctx context.Context, dir string) ([]string, error) {
	switch paths, err := gitListed(ctx, dir); {
	case err == nil:
		return paths, nil
	case errors.Is(err, ErrTooMany):
		return nil, err
	}
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil // unreadable: nor can a search read it
		case d.IsDir() && d.Name() == ".git":
			return filepath.SkipDir
		case d.Type().IsRegular():
			if len(paths) == maxFiles {
				return ErrTooMany
			}
			paths = append(paths, p)
		}
		return nil
	})
	return paths, err
}

// gitListed asks git for the files below dir, with nothing of the
// repository's config able to run a program.
func gitListed(ctx context.Context, dir string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, "git", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null",
		"-C", dir, "ls-files", "--cached", "--others", "--exclude-standard", "-z")
	c.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
	out, err := c.Output()
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, rel := range strings.Split(string(out), "\x00") {
		if rel == "" {
			continue
		}
		if len(paths) == maxFiles {
			return nil, ErrTooMany
		}
		paths = append(paths, filepath.Join(dir, rel))
	}
	return paths, nil
}
