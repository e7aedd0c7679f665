// Package buildcache keeps each workspace's build caches (Go, npm, pip,
// cargo, XDG) between sandboxed commands: one root per workspace under
// DATADIR/cache, writable inside that workspace's sandbox only, bounded
// in size by evicting what was used least recently, with the host's own
// module caches readable as a fallback so work that builds offline on the
// host builds offline in the sandbox.
package buildcache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// DefaultLimitBytes bounds all workspaces' caches together.
const DefaultLimitBytes = 8 << 30

// The cache root's layout: one directory per tool.
const (
	GoBuild = "go-build"
	GoMod   = "go-mod"
	Npm     = "npm"
	Pip     = "pip"
	Cargo   = "cargo"
	XDG     = "xdg"
)

var toolDirs = []string{GoBuild, GoMod, Npm, Pip, Cargo, XDG}

// workspaceFile names, inside a root, the workspace it belongs to.
const workspaceFile = ".workspace"

// Options configure the cache.
type Options struct {
	// Dir holds one root per workspace (DATADIR/cache).
	Dir string
	// LimitBytes bounds all roots together; 0 means DefaultLimitBytes.
	LimitBytes int64
	// Host are the person's own caches, shown read-only as a fallback.
	Host   Host
	Logger *slog.Logger
}

// Cache is the set of per-workspace cache roots.
type Cache struct {
	o   Options
	log *slog.Logger

	mu     sync.Mutex
	roots  map[string]string        // workspace -> root, made
	active map[string]int           // root -> runs using it now
	seeds  map[string]chan struct{} // roots being or done being seeded from the host caches this start; closed when done

	ev evictor
}

// Open prepares dir (mode 0700: the caches of every workspace are in it).
func Open(o Options) (*Cache, error) {
	if o.LimitBytes <= 0 {
		o.LimitBytes = DefaultLimitBytes
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("create the build cache dir: %w", err)
	}
	c := &Cache{o: o, log: o.Logger, roots: map[string]string{}, active: map[string]int{}, seeds: map[string]chan struct{}{}}
	c.ev.c = c
	return c, nil
}

// Dir is where the roots live.
func (c *Cache) Dir() string { return c.o.Dir }

// LimitBytes is the bound on all roots together.
func (c *Cache) LimitBytes() int64 { return c.o.LimitBytes }

// RootName is the directory name of a workspace's root: a hash, so a
// path never has to be escaped and no root's name says whose it is.
func RootName(ws string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(ws)))
	return hex.EncodeToString(sum[:8])
}

// Root returns workspace ws's cache root, creating it on first use.
func (c *Cache) Root(ws string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r, ok := c.roots[ws]; ok {
		return r, nil
	}
	name := RootName(ws)
	if err := c.makeRoot(name, ws); err != nil {
		return "", fmt.Errorf("create the build cache for %s: %w", ws, err)
	}
	r := filepath.Join(c.o.Dir, name)
	c.roots[ws] = r
	return r, nil
}

// makeRoot creates a root's tool dirs and its workspace note. Earlier
// sandboxes wrote the root, so this goes through os.Root, which no link
// they left can lead out of.
func (c *Cache) makeRoot(name, ws string) error {
	d, err := os.OpenRoot(c.o.Dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.MkdirAll(name, 0o700); err != nil {
		return err
	}
	r, err := d.OpenRoot(name)
	if err != nil {
		return err
	}
	defer r.Close()
	for _, t := range toolDirs {
		if err := r.MkdirAll(t, 0o700); err != nil {
			return err
		}
	}
	_ = r.Remove(workspaceFile)
	f, err := r.OpenFile(workspaceFile, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(ws + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Env points the tools' caches into root, with the host's Go module
// download cache as the first proxy.
func (c *Cache) Env(root string) []string {
	env := []string{
		"GOCACHE=" + filepath.Join(root, GoBuild),
		"GOMODCACHE=" + filepath.Join(root, GoMod),
		"npm_config_cache=" + filepath.Join(root, Npm),
		"PIP_CACHE_DIR=" + filepath.Join(root, Pip),
		"CARGO_HOME=" + filepath.Join(root, Cargo),
		"XDG_CACHE_HOME=" + filepath.Join(root, XDG),
	}
	return append(env, c.o.Host.goEnv()...)
}

// ReadOnly are the host caches every sandbox may read.
func (c *Cache) ReadOnly() []string { return c.o.Host.readOnly() }

// Begin marks a run using root and readies it: the host's caches are
// linked in (once per start, in the background), and if the cache is
// over its bound or its disk is nearly full, the least recently used
// entries go first. It fails, with a sentence saying what to do, only
// when the disk stays full after that. A run that only reads
// (onlyReads: ls, git status) does not wait for the linking, which takes
// a second or more for a large npm cache the first time a root is
// seeded; only a package manager run before it is done would miss
// entries.
func (c *Cache) Begin(ctx context.Context, root string, onlyReads bool) (end func(), err error) {
	c.mu.Lock()
	c.active[root]++
	c.mu.Unlock()
	end = func() {
		c.mu.Lock()
		c.active[root]--
		if c.active[root] <= 0 {
			delete(c.active, root)
		}
		c.mu.Unlock()
		// Outside the call's path: the next call does not wait for it.
		c.ev.soon()
	}
	// Usually done long before (Prepare runs at start); a command that
	// may read the npm cache must not race it.
	if !onlyReads {
		select {
		case <-c.seed(root):
		case <-time.After(seedWait):
		case <-ctx.Done():
		}
	}
	if err := c.ev.ensureRoom(ctx); err != nil {
		end()
		return nil, err
	}
	return end, nil
}

// seedWait bounds how long a run waits for its root's seeding.
const seedWait = 30 * time.Second

// Seed makes the roots of workspaces and links the host's caches into
// them in the background, so the first command finds them ready.
func (c *Cache) Seed(workspaces []string) {
	for _, ws := range workspaces {
		if r, err := c.Root(ws); err == nil {
			c.seed(r)
		}
	}
}

// seed starts linking the host's caches into root once per start and
// returns a channel closed when that is done.
func (c *Cache) seed(root string) <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch, ok := c.seeds[root]
	if !ok {
		ch = make(chan struct{})
		c.seeds[root] = ch
		go func() {
			defer close(ch)
			c.o.Host.seed(root, c.log)
		}()
	}
	return ch
}

// isActive reports whether a run uses root now.
func (c *Cache) isActive(root string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.active[root] > 0
}

// Wait lets background eviction finish (tests, shutdown).
func (c *Cache) Wait() { c.ev.wait() }

// evictInterval spaces background passes: each walks every root.
const evictInterval = 30 * time.Second
