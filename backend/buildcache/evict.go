package buildcache

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/rmtree"
)

// ErrDiskFull means the cache's disk stayed full after eviction.
var ErrDiskFull = errors.New("the build cache's disk is full")

// DiskFullError says where and how full, in a sentence for the person.
type DiskFullError struct {
	Dir  string
	Free int64
}

func (e *DiskFullError) Error() string {
	return fmt.Sprintf("the disk holding Gatehouse's build cache (%s) has only %d MiB free, even after clearing the cache's oldest entries; free space on that disk, then run the command again", e.Dir, e.Free>>20)
}

func (e *DiskFullError) Is(target error) bool { return target == ErrDiskFull }

// unit is what eviction removes at once: a whole tool cache, or one
// top-level entry of the caches made of independent entries (Go's
// build cache, XDG_CACHE_HOME). A module cache goes as a whole, since
// its extracted modules need its download records.
type unit struct {
	path  string
	root  string
	bytes int64
	used  time.Time // newest change inside
}

// splitTools are the tool dirs evicted one entry at a time.
var splitTools = map[string]bool{GoBuild: true, XDG: true}

type evictor struct {
	c *Cache

	mu        sync.Mutex
	running   bool
	last      time.Time
	lastTotal int64
	wg        sync.WaitGroup
	// passMu serialises passes (background and on the call's path).
	passMu sync.Mutex
}

// soon starts a background pass unless one ran lately and the cache was
// well within its bound then.
func (e *evictor) soon() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.running || (!e.last.IsZero() && time.Since(e.last) < evictInterval && e.lastTotal <= e.c.o.LimitBytes*9/10) {
		return
	}
	e.running = true
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		if _, err := e.pass(0); err != nil {
			e.c.log.Warn("build cache: eviction", "err", err)
		}
		e.mu.Lock()
		e.running = false
		e.mu.Unlock()
	}()
}

func (e *evictor) wait() { e.wg.Wait() }

// ensureRoom evicts now, on the call's path, only when the last pass
// found the cache over its bound or the disk is nearly full.
func (e *evictor) ensureRoom(ctx context.Context) error {
	free, size, err := diskFree(e.c.o.Dir)
	if err != nil {
		return nil // cannot tell; the run will say if it fails
	}
	need := minFree(size)
	e.mu.Lock()
	over := e.lastTotal > e.c.o.LimitBytes
	e.mu.Unlock()
	if !over && free >= need {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if _, err := e.pass(2 * need); err != nil {
		e.c.log.Warn("build cache: eviction", "err", err)
	}
	if free, _, err = diskFree(e.c.o.Dir); err == nil && free < need {
		return &DiskFullError{Dir: e.c.o.Dir, Free: free}
	}
	return nil
}

// minFree is the free space below which the disk counts as full: a
// twentieth of it, between 4 and 256 MiB.
func minFree(size int64) int64 {
	return min(max(size/20, 4<<20), 256<<20)
}

// pass measures every root and removes the least recently used units
// until the total is under 80% of the bound and, when wantFree > 0, the
// disk has that much free. Runs in progress keep their roots unless
// nothing else is left.
func (e *evictor) pass(wantFree int64) (removed int, err error) {
	e.passMu.Lock()
	defer e.passMu.Unlock()
	units, total, err := e.c.units()
	e.mu.Lock()
	e.last, e.lastTotal = time.Now(), total
	e.mu.Unlock()
	if err != nil {
		return 0, err
	}
	diskOK := func() bool {
		if wantFree <= 0 {
			return true
		}
		free, _, err := diskFree(e.c.o.Dir)
		return err != nil || free >= wantFree
	}
	if total <= e.c.o.LimitBytes && diskOK() {
		return 0, nil
	}
	target := e.c.o.LimitBytes * 8 / 10
	enough := func() bool { return total <= target && diskOK() }
	slices.SortFunc(units, func(a, b unit) int { return a.used.Compare(b.used) })
	for _, spareActive := range []bool{true, false} {
		for i := range units {
			u := &units[i]
			if enough() {
				break
			}
			if u.path == "" || (spareActive && e.c.isActive(u.root)) {
				continue
			}
			if err := e.c.removeAll(u.path); err != nil {
				e.c.log.Warn("build cache: evict", "path", u.path, "err", err)
				continue
			}
			if !splitTools[filepath.Base(filepath.Dir(u.path))] {
				e.c.remake(u.path) // a whole tool dir stays, empty
			}
			total -= u.bytes
			removed++
			e.c.log.Info("build cache: evicted", "path", u.path, "bytes", u.bytes, "last_used", u.used)
			u.path = ""
		}
	}
	e.mu.Lock()
	e.lastTotal = total
	e.mu.Unlock()
	return removed, nil
}

// units lists every root's eviction units and their total size.
func (c *Cache) units() ([]unit, int64, error) {
	roots, err := os.ReadDir(c.o.Dir)
	if err != nil {
		return nil, 0, fmt.Errorf("list the build cache: %w", err)
	}
	var out []unit
	var total int64
	for _, r := range roots {
		if !r.IsDir() {
			continue
		}
		root := filepath.Join(c.o.Dir, r.Name())
		for _, tool := range toolDirs {
			dir := filepath.Join(root, tool)
			if !splitTools[tool] {
				u := measure(dir)
				u.root = root
				if u.bytes > 0 {
					out = append(out, u)
				}
				total += u.bytes
				continue
			}
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				u := measure(filepath.Join(dir, e.Name()))
				u.root = root
				out = append(out, u)
				total += u.bytes
			}
		}
	}
	return out, total, nil
}

// measure is p's disk use and newest change.
func measure(p string) unit {
	u := unit{path: p}
	_ = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			u.bytes += st.Blocks * 512
		} else {
			u.bytes += info.Size()
		}
		if info.ModTime().After(u.used) {
			u.used = info.ModTime()
		}
		return nil
	})
	return u
}

// diskFree is the free and total bytes of the filesystem holding dir.
func diskFree(dir string) (free, size int64, err error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, 0, err
	}
	return int64(st.Bavail) * int64(st.Bsize), int64(st.Blocks) * int64(st.Bsize), nil
}

// removeAll removes p (under the cache dir) even where a tool made its
// files read-only, as Go's module cache does.
func (c *Cache) removeAll(p string) error {
	rel, err := filepath.Rel(c.o.Dir, p)
	if err != nil {
		return fmt.Errorf("%s is not in the build cache: %w", p, err)
	}
	return rmtree.Under(c.o.Dir, rel) // refuses a rel that leaves the cache dir
}

// remake recreates an emptied tool dir.
func (c *Cache) remake(p string) {
	if rel, err := filepath.Rel(c.o.Dir, p); err == nil && !strings.HasPrefix(rel, "..") {
		if d, err := os.OpenRoot(c.o.Dir); err == nil {
			_ = d.MkdirAll(rel, 0o700)
			d.Close()
		}
	}
}
