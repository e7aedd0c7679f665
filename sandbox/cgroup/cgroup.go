// Package cgroup gives one sandboxed run its own pids cgroup when the
// daemon runs as root. Root ignores RLIMIT_NPROC, so without this a fork
// bomb started by root would not be bounded; the cgroup also lists every
// process of the run for the final kill.
package cgroup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Group is one run's cgroup (a directory in the pids hierarchy).
type Group struct {
	Dir string
}

// ErrUnsupported means no writable pids cgroup hierarchy was found.
var ErrUnsupported = errors.New("no writable pids cgroup")

// root is where cgroups live; a variable so tests could point elsewhere.
var root = "/sys/fs/cgroup"

// New creates a pids cgroup named name that allows at most maxPids tasks.
// It works on cgroup v2 (unified) and on v1 with a pids hierarchy.
func New(name string, maxPids int) (*Group, error) {
	if os.Geteuid() != 0 {
		return nil, ErrUnsupported
	}
	var parent string
	if _, err := os.Stat(filepath.Join(root, "cgroup.controllers")); err == nil {
		parent = filepath.Join(root, "gatehouse")
		if err := os.MkdirAll(parent, 0o755); err != nil {
			return nil, fmt.Errorf("create cgroup parent: %w", err)
		}
		// Delegate the pids controller down to our runs.
		_ = os.WriteFile(filepath.Join(root, "cgroup.subtree_control"), []byte("+pids"), 0)
		_ = os.WriteFile(filepath.Join(parent, "cgroup.subtree_control"), []byte("+pids"), 0)
	} else if _, err := os.Stat(filepath.Join(root, "pids", "cgroup.procs")); err == nil {
		parent = filepath.Join(root, "pids", "gatehouse")
		if err := os.MkdirAll(parent, 0o755); err != nil {
			return nil, fmt.Errorf("create cgroup parent: %w", err)
		}
	} else {
		return nil, ErrUnsupported
	}
	if sweeps.due(parent, time.Now()) {
		sweep(parent)
	}
	dir := filepath.Join(parent, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create cgroup: %w", err)
	}
	g := &Group{Dir: dir}
	if maxPids > 0 {
		if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.Itoa(maxPids)), 0); err != nil {
			_ = g.Remove()
			return nil, fmt.Errorf("set pids.max: %w", err)
		}
	}
	return g, nil
}

// ProcsFile is the file a process writes "0" to in order to join.
func (g *Group) ProcsFile() string { return filepath.Join(g.Dir, "cgroup.procs") }

// Join moves the calling process into the cgroup at procsFile.
func Join(procsFile string) error {
	return os.WriteFile(procsFile, []byte("0"), 0)
}

// PIDs lists the processes in the group.
func (g *Group) PIDs() []int {
	b, err := os.ReadFile(g.ProcsFile())
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// Kill SIGKILLs every process in the group until it is empty.
func (g *Group) Kill() error {
	if err := os.WriteFile(filepath.Join(g.Dir, "cgroup.kill"), []byte("1"), 0); err == nil {
		return g.waitEmpty()
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		pids := g.PIDs()
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cgroup %s: %d processes survived SIGKILL", g.Dir, len(pids))
		}
		for _, p := range pids {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func (g *Group) waitEmpty() error {
	deadline := time.Now().Add(5 * time.Second)
	for len(g.PIDs()) > 0 {
		if time.Now().After(deadline) {
			return fmt.Errorf("cgroup %s not empty after kill", g.Dir)
		}
		time.Sleep(2 * time.Millisecond)
	}
	return nil
}

// Remove deletes the cgroup; it must be empty (Kill first). Exited but
// not yet reaped processes can hold it briefly, so it retries.
func (g *Group) Remove() error {
	var err error
	wait := 50 * time.Microsecond
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if err = os.Remove(g.Dir); err == nil || errors.Is(err, os.ErrNotExist) {
			return nil
		}
		time.Sleep(wait)
		wait = min(2*wait, 20*time.Millisecond)
	}
	return fmt.Errorf("remove cgroup: %w", err)
}

// staleAfter is how old a leftover run cgroup must be before sweep
// removes it, and so how often a sweep can find anything new.
const staleAfter = 10 * time.Minute

// sweeps remembers when each parent was last swept: listing it for every
// run cost a root daemon more than making the run's cgroup.
var sweeps = sweepClock{last: map[string]time.Time{}}

type sweepClock struct {
	mu   sync.Mutex
	last map[string]time.Time
}

// due reports whether parent has not been swept within staleAfter, and
// if so counts it as swept at now.
func (c *sweepClock) due(parent string, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if last, ok := c.last[parent]; ok && now.Sub(last) < staleAfter {
		return false
	}
	c.last[parent] = now
	return true
}

// sweep removes run cgroups left by a process that died before cleaning
// up. Only old ones: a fresh empty one may be waiting for its helper to
// join. rmdir refuses non-empty cgroups, so live runs are safe.
func sweep(parent string) {
	ents, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "run-") {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > staleAfter {
			_ = os.Remove(filepath.Join(parent, e.Name()))
		}
	}
}
