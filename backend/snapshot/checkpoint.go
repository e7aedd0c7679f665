package snapshot

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gatehouse-dev/gatehouse/backend/snapshot/pack"
)

// Checkpoint records the current state of req.Roots (or just req.Paths) and
// returns the durable record. Files it cannot keep are listed in
// NotRestorable rather than failing the call.
func (s *Store) Checkpoint(ctx context.Context, req Request) (Checkpoint, error) {
	if s.closed.Load() {
		return Checkpoint{}, ErrClosed
	}
	if req.Session == "" {
		return Checkpoint{}, fmt.Errorf("%w: a checkpoint needs a session id", ErrBadRequest)
	}
	if req.Phase != Pre && req.Phase != Post {
		return Checkpoint{}, fmt.Errorf("%w: phase must be %q or %q", ErrBadRequest, Pre, Post)
	}
	scopes, err := scopePaths(req.Roots, req.Paths)
	if err != nil {
		return Checkpoint{}, err
	}
	s.gcMu.RLock()
	defer s.gcMu.RUnlock()
	if s.closed.Load() {
		return Checkpoint{}, ErrClosed
	}
	return s.checkpointLocked(ctx, req.Session, req.CallID, req.Phase, scopes)
}

// rootScope is one root and, when path-scoped, its root-relative paths.
type rootScope struct {
	root  string
	whole bool
	rels  []string
}

// scopePaths maps absolute paths onto their roots.
func scopePaths(roots, paths []string) ([]rootScope, error) {
	if len(roots) == 0 {
		return nil, fmt.Errorf("%w: no workspace roots given", ErrBadRequest)
	}
	var out []rootScope
	seen := map[string]bool{}
	for _, r := range roots {
		if !filepath.IsAbs(r) {
			return nil, fmt.Errorf("%w: workspace root %q must be an absolute path", ErrBadRequest, r)
		}
		r = filepath.Clean(r)
		if seen[r] {
			continue
		}
		seen[r] = true
		out = append(out, rootScope{root: r, whole: paths == nil})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].root < out[j].root })
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("%w: path %q must be absolute", ErrBadRequest, p)
		}
		p = filepath.Clean(p)
		best := -1
		for i, sc := range out {
			if p == sc.root || strings.HasPrefix(p, strings.TrimSuffix(sc.root, "/")+"/") {
				if best < 0 || len(sc.root) > len(out[best].root) {
					best = i
				}
			}
		}
		if best < 0 {
			return nil, fmt.Errorf("%w: path %s is outside every workspace root", ErrBadRequest, p)
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, out[best].root), "/")
		if rel == "" {
			out[best].whole = true
			continue
		}
		out[best].rels = append(out[best].rels, filepath.ToSlash(rel))
	}
	for i := range out {
		out[i].rels = topmost(out[i].rels)
	}
	return out, nil
}

// topmost drops duplicates and paths under another listed path.
func topmost(rels []string) []string {
	sort.Strings(rels)
	var out []string
	for _, r := range rels {
		if n := len(out); n > 0 && (out[n-1] == r || strings.HasPrefix(r, out[n-1]+"/")) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// checkpointLocked does the work; gcMu must be held (read).
func (s *Store) checkpointLocked(ctx context.Context, session, callID string, phase Phase, scopes []rootScope) (Checkpoint, error) {
	start := time.Now()
	states := make([]*rootState, len(scopes))
	for i, sc := range scopes { // sorted by root: a fixed lock order
		states[i] = s.rootState(sc.root)
		states[i].mu.Lock()
		defer states[i].mu.Unlock()
	}
	b := s.objs.NewBatch()
	cp := Checkpoint{Session: session, CallID: callID, Phase: phase, Time: start.UTC(), Excludes: s.opts.Exclude}
	newCaches := make([]*node, len(scopes))
	for i, sc := range scopes {
		rs := states[i]
		s.ensureLoaded(sc.root, rs)
		scn := s.newScanner(ctx, b, sc.root, true)
		var tree Hash
		var n *node
		var err error
		base, haveBase := s.ix.latestTree(session, sc.root)
		if sc.whole || !haveBase || !s.objs.Has(base) {
			n, err = s.scanRoot(scn, sc.root, rs.cache)
			if err == nil {
				tree = n.e.Hash
			}
			cp.Roots = append(cp.Roots, RootTree{Root: sc.root, Tree: tree})
		} else {
			tree, n, err = s.scanScoped(scn, sc.root, base, sc.rels, rs.cache)
			cp.Roots = append(cp.Roots, RootTree{Root: sc.root, Tree: tree, Scoped: sc.rels})
		}
		if err != nil {
			b.Abort()
			return Checkpoint{}, err
		}
		newCaches[i] = n
		cp.Stats.Files += scn.files.Load()
		cp.Stats.Dirs += scn.dirs.Load()
		cp.Stats.Symlinks += scn.links.Load()
		cp.Stats.Bytes += scn.bytes.Load()
		cp.Stats.Hashed += scn.hashed.Load()
		cp.Stats.HashedBytes += scn.hashedBytes.Load()
		s.listed.Add(scn.listed.Load())
		sort.Slice(scn.unrest, func(a, b int) bool { return scn.unrest[a].Path < scn.unrest[b].Path })
		cp.NotRestorable = append(cp.NotRestorable, scn.unrest...)
	}
	if err := ctx.Err(); err != nil {
		b.Abort()
		return Checkpoint{}, err
	}
	// Objects must be durable before any record points at them.
	if err := b.Commit(); err != nil {
		return Checkpoint{}, err
	}
	objects, bytes := b.Written()
	cp.Stats.NewObjects, cp.Stats.NewBytes = int64(objects), bytes
	cp.Stats.Duration = time.Since(start)
	cp.ID = checkpointID(&cp)
	if err := s.ix.append(session, logLine{Checkpoint: &cp}); err != nil {
		return Checkpoint{}, err
	}
	for i, sc := range scopes {
		s.adopt(sc.root, states[i], newCaches[i])
	}
	s.maybePrune()
	return cp, nil
}

func checkpointID(cp *Checkpoint) string {
	js, _ := json.Marshal(cp)
	h := hashBytes(js)
	return "cp_" + hex.EncodeToString(h[:10])
}

func openRoot(root string) (int, error) {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		if isGone(err) {
			return -1, &WorkspaceMissingError{Root: root}
		}
		return -1, fmt.Errorf("open workspace %s: %w", root, err)
	}
	return fd, nil
}

// scanRoot scans a whole root; the result's hash is the root tree.
func (s *Store) scanRoot(scn *scanner, root string, old *node) (*node, error) {
	fd, err := openRoot(root)
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, err
	}
	n, err := scn.scanDir(fd, "", Entry{Kind: KindDir, Perm: uint32(st.Mode & 07777)}, statKeyOf(&st), old)
	if err != nil {
		return nil, err
	}
	if n.e.Kind != KindDir {
		return nil, &PathError{Path: root, Err: fmt.Errorf("%w: cannot list the workspace (%s)", ErrUnreadable, n.detail)}
	}
	return n, nil
}

// scanPath scans one root-relative path. n is nil when the path does not
// exist (or sits under something that is no longer a real directory).
// perms are the permission bits of its existing ancestors.
func (scn *scanner) scanPath(rootfd int, rel string, old *node) (n *node, perms []uint32, excluded bool, err error) {
	dir, name := splitRel(rel)
	parent, perms, err := openDirChain(rootfd, dir)
	if err != nil {
		if isGone(err) || errors.Is(err, unix.ELOOP) {
			return nil, perms, false, nil
		}
		return nil, perms, false, &PathError{Path: rel, Err: err}
	}
	if parent != rootfd {
		defer unix.Close(parent)
	}
	var st unix.Stat_t
	if err := unix.Fstatat(parent, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		if isGone(err) {
			return nil, perms, false, nil
		}
		return scn.unreadable(rel, name, 0, err), perms, false, nil
	}
	isDir := st.Mode&unix.S_IFMT == unix.S_IFDIR
	if scn.ex.matchesAncestor(rel, isDir) {
		return nil, perms, true, nil
	}
	oldN := old.lookup(rel)
	if isDir {
		n, err = scn.openAndScan(parent, rel, name, oldN)
	} else if key := statKeyOf(&st); oldN != nil && !oldN.racy && oldN.st == key && scn.reusable(oldN) {
		n = oldN
	} else {
		n, err = scn.scanLeaf(parent, rel, name, &st)
	}
	if n != nil && err == nil {
		if n.e.Kind == KindUnrestorable {
			scn.note(rel, n.e.Size, n.e.Reason, n.detail)
		} else if n.e.Kind != KindDir {
			scn.count(n)
		}
	}
	return n, perms, false, err
}

// openDirChain opens dir (root-relative) without following symlinks in any
// component and returns the permission bits of each component.
func openDirChain(rootfd int, dir string) (int, []uint32, error) {
	if dir == "" {
		return rootfd, nil, nil
	}
	fd := rootfd
	var perms []uint32
	for _, part := range strings.Split(dir, "/") {
		nfd, err := unix.Openat(fd, part, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if fd != rootfd {
			unix.Close(fd)
		}
		if err != nil {
			return -1, perms, err
		}
		var st unix.Stat_t
		if err := unix.Fstat(nfd, &st); err != nil {
			unix.Close(nfd)
			return -1, perms, err
		}
		perms = append(perms, uint32(st.Mode&07777))
		fd = nfd
	}
	return fd, perms, nil
}

// overlay is a trie of path replacements applied to a base tree.
type overlay struct {
	set      bool
	n        *node // nil with set: delete
	perm     uint32
	havePerm bool
	kids     map[string]*overlay
}

func (o *overlay) at(parts []string, perms []uint32) *overlay {
	cur := o
	for i, p := range parts {
		if cur.kids == nil {
			cur.kids = map[string]*overlay{}
		}
		next := cur.kids[p]
		if next == nil {
			next = &overlay{}
			cur.kids[p] = next
		}
		if i < len(parts)-1 && i < len(perms) {
			next.perm, next.havePerm = perms[i], true
		}
		cur = next
	}
	return cur
}

// scanScoped re-reads rels and splices them into base.
func (s *Store) scanScoped(scn *scanner, root string, base Hash, rels []string, old *node) (Hash, *node, error) {
	rootfd, err := openRoot(root)
	if err != nil {
		return Hash{}, nil, err
	}
	defer unix.Close(rootfd)
	ov := &overlay{}
	cache := old
	for _, rel := range rels {
		n, perms, excluded, err := scn.scanPath(rootfd, rel, old)
		if err != nil {
			return Hash{}, nil, err
		}
		if excluded {
			continue
		}
		parts := strings.Split(rel, "/")
		leaf := ov.at(parts, perms)
		leaf.set, leaf.n = true, n
		cache = withPath(cache, parts, n)
	}
	tree, err := s.splice(scn.b, base, ov)
	return tree, cache, err
}

// splice writes the tree h with the overlay applied and returns its hash.
func (s *Store) splice(b *pack.Batch, h Hash, ov *overlay) (Hash, error) {
	var es []Entry
	if !h.IsZero() {
		base, err := s.readTree(h)
		if err != nil {
			return Hash{}, err
		}
		es = append(es, base...)
	}
	for name, k := range ov.kids {
		i, found := findEntry(es, name)
		var repl *Entry
		switch {
		case k.set && k.n == nil:
		case k.set:
			e := k.n.e
			e.Name = name
			repl = &e
		case found && es[i].Kind == KindDir:
			sub, err := s.splice(b, es[i].Hash, k)
			if err != nil {
				return Hash{}, err
			}
			e := es[i]
			e.Hash = sub
			repl = &e
		case k.havePerm:
			sub, err := s.splice(b, Hash{}, k)
			if err != nil {
				return Hash{}, err
			}
			repl = &Entry{Name: name, Kind: KindDir, Perm: k.perm, Hash: sub}
		default:
			if found {
				repl = &es[i]
			} else {
				continue
			}
		}
		switch {
		case repl == nil && found:
			es = append(es[:i], es[i+1:]...)
		case repl != nil && found:
			es[i] = *repl
		case repl != nil:
			es = append(es, Entry{})
			copy(es[i+1:], es[i:])
			es[i] = *repl
		}
	}
	data := encodeTree(es)
	nh := hashBytes(data)
	return nh, b.PutTree(nh, data)
}

// Preflight lists the files under roots (or just paths) that a checkpoint
// could not keep, without reading file contents, so a person can be told
// before approving a call.
func (s *Store) Preflight(ctx context.Context, roots, paths []string) ([]NotRestorable, error) {
	scopes, err := scopePaths(roots, paths)
	if err != nil {
		return nil, err
	}
	var out []NotRestorable
	for _, sc := range scopes {
		rs := s.rootState(sc.root)
		rs.mu.Lock()
		s.ensureLoaded(sc.root, rs)
		old := rs.cache
		rs.mu.Unlock()
		scn := s.newScanner(ctx, nil, sc.root, false)
		if sc.whole {
			if _, err := s.scanRoot(scn, sc.root, old); err != nil {
				return nil, err
			}
		} else {
			rootfd, err := openRoot(sc.root)
			if err != nil {
				return nil, err
			}
			for _, rel := range sc.rels {
				if _, _, _, err := scn.scanPath(rootfd, rel, old); err != nil {
					unix.Close(rootfd)
					return nil, err
				}
			}
			unix.Close(rootfd)
		}
		sort.Slice(scn.unrest, func(a, b int) bool { return scn.unrest[a].Path < scn.unrest[b].Path })
		out = append(out, scn.unrest...)
	}
	return out, nil
}
