// Package gitguard keeps git's config and hooks as they were while a
// Landlock run may write the directory they live in.
//
// Landlock grants rights down a whole directory tree and cannot take them
// back below: a run allowed to create index.lock in .git may also create
// .git/hooks/pre-commit or rewrite .git/config, which the person's own git
// later runs outside any sandbox. So for the length of each run the
// daemon records those paths (content and a fingerprint of every inode),
// watches them with inotify, kills the run the moment one changes, and
// puts them back once the run is dead. What the run wrote is kept beside
// them under a name git never reads, with its execute bits cleared.
//
// A rewrite that leaves a path as it was (git rewrites its config whole
// even to change nothing) stops no run; see maxSameWrites.
//
// What remains: between the write and the kill (the inotify wake-up and a
// SIGKILL, about a millisecond) and the restore after it, a process on the
// host that reads the file sees the run's version. A change the person
// makes on the host during a run is taken for the run's and undone (and
// kept aside the same way).
package gitguard

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// ViolationKind marks a run's change to a guarded path.
const ViolationKind = "protected-write"

// Guard watches guarded paths for the runs that may write them. Runs
// over the same paths share one watch and one baseline, so a run that
// starts while another has just changed a path never takes that change
// for the state to keep.
type Guard struct {
	mu      sync.Mutex
	watches map[string]*shared
	// baselines keep the last snapshot of each path between runs, so an
	// unchanged hooks dir is not read again.
	baselines map[string]*node
}

// Default serves every backend in the process.
var Default = &Guard{}

// shared is one watch over a set of paths. It outlives the runs that use
// it while nothing changes, since creating and closing an inotify
// instance costs about a millisecond per run; an event while no run holds
// it (the person's own change, or a restore) makes it stale, and the next
// run starts a fresh one.
type shared struct {
	key      string
	paths    []string
	keep     keepSet
	base     map[string]*node
	w        *watcher
	leases   map[*Lease]bool
	changed  []string // guarded paths seen changing during runs, in order
	stale    bool     // changed while no run held it
	idleFrom time.Time
	// closing is set while the last run out checks and restores; settled
	// closes when it is done.
	closing  bool
	settled  chan struct{}
	restored chan struct{}
	result   []sandbox.Violation
	// sameWrites counts the changes seen during the runs that left a
	// path's content as it was (see fire).
	sameWrites int
}

// maxSameWrites bounds the changes that leave a guarded path as it was
// and do not stop a run: git rewrites its config whole, to the same bytes,
// for each branch `git branch -D` deletes. What the path held between two
// such changes is unseen, so a run that keeps making them is stopped.
const maxSameWrites = 32

// maxIdle bounds the watches kept between runs (one per workspace in use).
const maxIdle = 16

// Lease is one run's part in a watch.
type Lease struct {
	g     *Guard
	s     *shared
	abort chan struct{}
	once  sync.Once
}

// Abort closes when a guarded path changed: the run must die now.
func (l *Lease) Abort() <-chan struct{} { return l.abort }

// Enter starts guarding paths for one run. keep are directories inside
// them that the run may change (a submodule's git dir inside the guarded
// .git/modules): only their names are guarded. It waits while an earlier
// change to the same paths is being undone.
func (g *Guard) Enter(ctx context.Context, paths, keep []string) (*Lease, error) {
	paths = slices.Clone(paths)
	slices.Sort(paths)
	paths = slices.Compact(paths)
	keep = slices.Clone(keep)
	slices.Sort(keep)
	keep = slices.Compact(keep)
	key := watchKey(paths, keep)
	for {
		g.mu.Lock()
		if g.watches == nil {
			g.watches, g.baselines = map[string]*shared{}, map[string]*node{}
		}
		s := g.watches[key]
		if s != nil && s.closing {
			g.mu.Unlock()
			select {
			case <-s.settled:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if s != nil && len(s.leases) == 0 && s.stale {
			g.retire(s)
			s = nil
		}
		if s != nil && len(s.changed) > 0 {
			g.mu.Unlock()
			select {
			case <-s.restored:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if s == nil {
			var err error
			s, err = g.start(key, paths, keep)
			if err != nil {
				g.mu.Unlock()
				return nil, err
			}
		}
		l := &Lease{g: g, s: s, abort: make(chan struct{})}
		s.leases[l] = true
		g.mu.Unlock()
		return l, nil
	}
}

// watchKey names the watch runs over the same sorted paths share.
func watchKey(paths, keep []string) string {
	return strings.Join(paths, "\x00") + "\x00\x00" + strings.Join(keep, "\x00")
}

// retire stops a watch no run holds; g.mu is held.
func (g *Guard) retire(s *shared) {
	if g.watches[s.key] == s {
		delete(g.watches, s.key)
	}
	go s.w.stop() // closing an inotify instance waits for an RCU grace period: milliseconds
}

// start records the baseline and starts the watch; g.mu is held.
func (g *Guard) start(key string, paths, keep []string) (*shared, error) {
	var idle []*shared
	for _, o := range g.watches {
		if len(o.leases) == 0 {
			idle = append(idle, o)
		}
	}
	if len(idle) >= maxIdle {
		slices.SortFunc(idle, func(a, b *shared) int { return a.idleFrom.Compare(b.idleFrom) })
		for _, o := range idle[:len(idle)-maxIdle+1] {
			g.retire(o)
		}
	}
	ks := keepSet{}
	for _, k := range keep {
		ks[k] = true
	}
	s := &shared{key: key, paths: paths, keep: ks, base: map[string]*node{}, leases: map[*Lease]bool{}, restored: make(chan struct{})}
	w, err := watch(paths, ks, func(p string) bool { return g.fire(s, p) })
	if err != nil {
		return nil, fmt.Errorf("watch git's protected paths: %w", err)
	}
	s.w = w
	// After the watch is up, so nothing changes unseen in between.
	for _, p := range paths {
		b := g.baselines[p]
		if b == nil || fingerprint(p, ks) != b.fp {
			b = snapshot(p, ks)
			g.baselines[p] = b
		}
		s.base[p] = b
	}
	g.watches[key] = s
	return s, nil
}

// fire aborts every run sharing s: which of them wrote is unknown. It
// reports whether the change counted; one that left p as it was does not
// (see maxSameWrites), and the watch goes on.
func (g *Guard) fire(s *shared, p string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(s.leases) == 0 {
		s.stale = true
		return true
	}
	// Watched anew before it is compared: a change after the comparison
	// is then an event of its own.
	if b := s.base[p]; b != nil && b.kind != absent && s.sameWrites < maxSameWrites && s.w.rearm(p) == nil && sameTree(p, b, s.keep) {
		s.sameWrites++
		return false
	}
	if !slices.Contains(s.changed, p) {
		s.changed = append(s.changed, p)
	}
	for l := range s.leases {
		l.once.Do(func() { close(l.abort) })
	}
	return true
}

// Leave ends the run's part once it is dead. The last run to leave
// compares every path with its baseline (inotify is the early warning;
// this is the check), puts back what changed, and every run that shared
// the watch while it changed gets the same violations.
func (l *Lease) Leave() []sandbox.Violation {
	g, s := l.g, l.s
	g.mu.Lock()
	delete(s.leases, l)
	last := len(s.leases) == 0
	tampered := len(s.changed) > 0
	if last {
		s.closing, s.settled = true, make(chan struct{})
	}
	g.mu.Unlock()
	if !last {
		if !tampered {
			return nil
		}
		// The others were killed too; the last of them restores.
		select {
		case <-s.restored:
		case <-time.After(30 * time.Second):
		}
		return s.result
	}
	var out []sandbox.Violation
	rewritten := false
	for _, p := range s.paths {
		b := s.base[p]
		if fingerprint(p, s.keep) == b.fp {
			continue
		}
		if sameTree(p, b, s.keep) {
			// Rewritten to what it was: no change to undo. The new inodes
			// are the baseline from now on.
			nb := snapshot(p, s.keep)
			g.mu.Lock()
			g.baselines[p], s.base[p] = nb, nb
			g.mu.Unlock()
			rewritten = true
			continue
		}
		out = append(out, putBack(p, b, s.keep))
		nb := snapshot(p, s.keep)
		g.mu.Lock()
		g.baselines[p] = nb
		g.mu.Unlock()
	}
	if tampered && len(out) == 0 {
		// Changed and changed back before the end: still a write to a
		// protected path, and the run was stopped for it.
		out = append(out, sandbox.Violation{Kind: ViolationKind, Detail: fmt.Sprintf("the command changed %s, which stays protected, and changed it back", short(s.changed[0]))})
	}
	g.mu.Lock()
	s.result, s.closing, s.sameWrites = out, false, 0
	if len(out) > 0 || rewritten {
		// The restored (or rewritten) files are new inodes: the next run
		// watches afresh.
		g.retire(s)
	} else {
		s.idleFrom = time.Now()
	}
	if tampered {
		close(s.restored)
	}
	close(s.settled)
	g.mu.Unlock()
	return out
}

// putBack restores p and describes what happened in one sentence.
func putBack(p string, b *node, keep keepSet) sandbox.Violation {
	aside, err := restore(p, b, keep)
	v := sandbox.Violation{Kind: ViolationKind}
	switch {
	case err != nil:
		v.Detail = fmt.Sprintf("the command changed %s, which stays protected, and Gatehouse could not put it back (%v); restore it from the call's checkpoint with gatehouse rollback", p, err)
	case aside != "":
		v.Detail = fmt.Sprintf("the command changed %s, which stays protected; Gatehouse put it back and kept what the command wrote in %s", short(p), aside)
	default:
		v.Detail = fmt.Sprintf("the command removed %s, which stays protected; Gatehouse put it back", short(p))
	}
	return v
}

// short is p from its .git on, as a person knows it.
func short(p string) string {
	parts := strings.Split(filepath.ToSlash(p), "/")
	for i := len(parts) - 1; i >= 0; i-- {
		if parts[i] == ".git" {
			return strings.Join(parts[i:], "/")
		}
	}
	return p
}
