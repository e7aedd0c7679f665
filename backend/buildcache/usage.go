package buildcache

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// WorkspaceUsage is one root's size.
type WorkspaceUsage struct {
	// Workspace is what the root's note says; a sandbox can write the
	// note, so it is for display only.
	Workspace string    `json:"workspace"`
	Root      string    `json:"root"`
	Bytes     int64     `json:"bytes"`
	LastUsed  time.Time `json:"last_used"`
}

// Usage is the whole cache's size against its bound.
type Usage struct {
	Dir        string           `json:"dir"`
	Bytes      int64            `json:"bytes"`
	LimitBytes int64            `json:"limit_bytes"`
	Workspaces []WorkspaceUsage `json:"workspaces"`
}

// Usage measures every root.
func (c *Cache) Usage() (Usage, error) {
	u := Usage{Dir: c.o.Dir, LimitBytes: c.o.LimitBytes, Workspaces: []WorkspaceUsage{}}
	units, _, err := c.units()
	if err != nil {
		return u, err
	}
	by := map[string]*WorkspaceUsage{}
	for _, un := range units {
		w := by[un.root]
		if w == nil {
			w = &WorkspaceUsage{Root: un.root, Workspace: c.note(un.root)}
			by[un.root] = w
		}
		w.Bytes += un.bytes
		if un.used.After(w.LastUsed) {
			w.LastUsed = un.used
		}
		u.Bytes += un.bytes
	}
	for _, w := range by {
		u.Workspaces = append(u.Workspaces, *w)
	}
	sort.Slice(u.Workspaces, func(i, j int) bool { return u.Workspaces[i].Bytes > u.Workspaces[j].Bytes })
	return u, nil
}

// note reads a root's workspace note, for display.
func (c *Cache) note(root string) string {
	r, err := os.OpenRoot(root)
	if err != nil {
		return ""
	}
	defer r.Close()
	f, err := r.Open(workspaceFile)
	if err != nil {
		return ""
	}
	defer f.Close()
	b := make([]byte, 4096)
	n, _ := f.Read(b)
	s, _, _ := strings.Cut(string(b[:n]), "\n")
	if !utf8.ValidString(s) {
		return ""
	}
	return s
}

// ErrInUse means a command is using the root being cleared.
var ErrInUse = fmt.Errorf("the build cache is in use by a running command")

// Clear empties workspace ws's cache, or every workspace's when ws is
// "". It returns the roots it emptied; a root a command is using is
// left alone and named in the error.
func (c *Cache) Clear(ws string) ([]string, error) {
	var roots []string
	if ws != "" {
		roots = []string{filepath.Join(c.o.Dir, RootName(ws))}
		if _, err := os.Lstat(roots[0]); err != nil {
			return nil, nil // nothing cached for it
		}
	} else {
		ents, err := os.ReadDir(c.o.Dir)
		if err != nil {
			return nil, fmt.Errorf("list the build cache: %w", err)
		}
		for _, e := range ents {
			if e.IsDir() {
				roots = append(roots, filepath.Join(c.o.Dir, e.Name()))
			}
		}
	}
	var cleared, busy []string
	for _, r := range roots {
		if c.isActive(r) {
			busy = append(busy, r)
			continue
		}
		for _, t := range toolDirs {
			p := filepath.Join(r, t)
			if err := c.removeAll(p); err != nil {
				return cleared, fmt.Errorf("clear %s: %w", p, err)
			}
			c.remake(p)
		}
		cleared = append(cleared, r)
		c.mu.Lock()
		delete(c.seeds, r) // link the host's caches in again next time
		c.mu.Unlock()
	}
	c.ev.mu.Lock()
	c.ev.last, c.ev.lastTotal = time.Time{}, 0 // measure afresh
	c.ev.mu.Unlock()
	if len(busy) > 0 {
		return cleared, fmt.Errorf("%w (%s); clear it again once that command ends", ErrInUse, strings.Join(busy, ", "))
	}
	return cleared, nil
}
