package snapshot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gatehouse-dev/gatehouse/backend/snapshot/pack"
	"github.com/gatehouse-dev/gatehouse/sandbox/sharedfs"
)

// Options tune a Store. The zero value gives the defaults.
type Options struct {
	// Exclude are glob patterns never recorded nor touched by rollback (see
	// excluder for the syntax). Nil means DefaultExcludes(); an empty,
	// non-nil slice excludes nothing.
	Exclude []string
	// MaxFileSize: bigger files are recorded as not restorable. Default 64 MiB.
	MaxFileSize int64
	// BudgetBytes caps the stored bytes reachable from one workspace root's
	// checkpoints; older checkpoints are pruned past it. Default 10 GiB;
	// negative means unlimited.
	BudgetBytes int64
	// CloneMinSize is the size from which files are reflinked into the store
	// when the filesystem supports it. Default 1 MiB.
	CloneMinSize int64
	// Workers bounds parallel file reads. Default 2×GOMAXPROCS.
	Workers int
}

func (o Options) withDefaults() Options {
	if o.Exclude == nil {
		o.Exclude = DefaultExcludes()
	}
	if o.MaxFileSize <= 0 {
		o.MaxFileSize = 64 << 20
	}
	if o.BudgetBytes == 0 {
		o.BudgetBytes = 10 << 30
	}
	if o.CloneMinSize <= 0 {
		o.CloneMinSize = 1 << 20
	}
	if o.Workers <= 0 {
		o.Workers = 2 * runtime.GOMAXPROCS(0)
	}
	return o
}

// Store is an open snapshot directory. It is safe for concurrent use.
type Store struct {
	dir  string
	opts Options
	log  *slog.Logger
	objs *pack.Store
	ix   *index
	ex   *excluder
	lock *os.File

	// gcMu: checkpoints and rollbacks share it; GC takes it exclusively.
	gcMu sync.RWMutex

	rootsMu sync.Mutex
	roots   map[string]*rootState

	trees    sync.Map // Hash -> []Entry, bounded by treeN
	treeN    atomic.Int64
	saveWG   sync.WaitGroup
	stamp    *os.File
	selfDev  uint64
	selfIno  uint64
	closed   atomic.Bool
	pruneRun atomic.Bool
	// prunedSize is the store's size after the last background prune (0
	// before one): maybePrune waits for growth past it.
	prunedSize atomic.Int64
	prunes     atomic.Int64 // prunes started, for tests
	listed     atomic.Int64 // directories listed with getdents, for tests
	// sharedFS reports a filesystem whose directories' stat cannot vouch
	// for their listing (see package sharedfs); a field so tests can say so.
	sharedFS func(fd int) bool

	savesMu     sync.Mutex
	savesClosed bool
}

type rootState struct {
	mu     sync.Mutex
	loaded bool
	cache  *node
	dirty  bool        // cache changed since it was last saved; under mu
	timer  *time.Timer // pending save; under mu
	saveMu sync.Mutex  // one save of this root at a time
}

// cacheSaveDelay: a changed stat cache is saved once checkpoints pause this
// long, not after each one. A save encodes and writes every node (megabytes
// for a big workspace) and would compete with the next call for the CPU; a
// cache lost in a crash only costs re-reading files.
const cacheSaveDelay = time.Second

// Open opens (creating if needed) the snapshot store in dir and finishes any
// rollback a crash interrupted.
func Open(dir string, opts Options, log *slog.Logger) (*Store, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, pack.ClassifyIO("create snapshot store", err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, pack.ClassifyIO("open snapshot store", err)
	}
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		lock.Close()
		return nil, fmt.Errorf("snapshot store %s is in use by another process; stop it first: %w", dir, err)
	}
	s := &Store{dir: dir, opts: opts.withDefaults(), log: log, lock: lock, roots: map[string]*rootState{}, sharedFS: sharedfs.FD}
	s.ex = newExcluder(s.opts.Exclude)
	fail := func(err error) (*Store, error) {
		lock.Close()
		return nil, err
	}
	for _, d := range []string{"cache", "journal"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			return fail(pack.ClassifyIO("create snapshot store", err))
		}
	}
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return fail(err)
	}
	s.selfDev, s.selfIno = uint64(st.Dev), st.Ino
	if s.stamp, err = os.OpenFile(filepath.Join(dir, "cache", "stamp"), os.O_CREATE|os.O_RDWR, 0o600); err != nil {
		return fail(pack.ClassifyIO("open snapshot store", err))
	}
	if s.objs, err = pack.Open(dir, log); err != nil {
		return fail(err)
	}
	if s.ix, err = openIndex(filepath.Join(dir, "sessions"), log); err != nil {
		return fail(err)
	}
	if err := s.Recover(context.Background()); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Close waits for background writes and releases the store.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	// Let in-flight calls finish, then background saves and prunes (a prune
	// needs gcMu itself and returns at once once closed is set).
	s.gcMu.Lock()
	s.gcMu.Unlock()
	s.savesMu.Lock()
	s.savesClosed = true // a cache save timer firing now does nothing
	s.savesMu.Unlock()
	s.saveWG.Wait()
	s.flushCaches()
	s.gcMu.Lock()
	defer s.gcMu.Unlock()
	if s.ix != nil {
		s.ix.close()
	}
	if s.objs != nil {
		s.objs.Close()
	}
	if s.stamp != nil {
		s.stamp.Close()
	}
	return s.lock.Close()
}

// Dir is the store's directory.
func (s *Store) Dir() string { return s.dir }

func (s *Store) rootState(root string) *rootState {
	s.rootsMu.Lock()
	defer s.rootsMu.Unlock()
	rs := s.roots[root]
	if rs == nil {
		rs = &rootState{}
		s.roots[root] = rs
	}
	return rs
}

func (s *Store) cachePath(root string) string {
	h := hashBytes([]byte(root))
	return filepath.Join(s.dir, "cache", h.String()[:32]+".stat")
}

// ensureLoaded reads the root's stat cache once; rs.mu must be held.
func (s *Store) ensureLoaded(root string, rs *rootState) {
	if rs.loaded {
		return
	}
	rs.loaded = true
	n, err := readStatCache(s.cachePath(root), s.scanPrint())
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			s.log.Warn("ignoring snapshot stat cache", "root", root, "err", err)
		}
		return
	}
	rs.cache = n
}

// scanPrint identifies what a scan leaves out of a directory listing: the
// exclude patterns and the store's own directory. A cached listing taken
// under another fingerprint may lack entries this scan must see.
func (s *Store) scanPrint() Hash {
	return hashBytes(fmt.Appendf(nil, "%q %d %d", s.opts.Exclude, s.selfDev, s.selfIno))
}

// adopt installs a committed scan as the root's cache and schedules its
// save; rs.mu must be held.
func (s *Store) adopt(root string, rs *rootState, n *node) {
	if n == nil || n == rs.cache {
		return
	}
	rs.cache, rs.dirty = n, true
	if rs.timer == nil {
		rs.timer = time.AfterFunc(cacheSaveDelay, func() { s.saveCache(root, rs) })
	} else {
		rs.timer.Reset(cacheSaveDelay)
	}
}

// saveCache runs on the save timer.
func (s *Store) saveCache(root string, rs *rootState) {
	s.savesMu.Lock()
	if s.savesClosed {
		s.savesMu.Unlock()
		return // Close saves it
	}
	s.saveWG.Add(1)
	s.savesMu.Unlock()
	defer s.saveWG.Done()
	s.saveOne(root, rs)
}

// saveOne writes the root's cache if it changed since the last save.
func (s *Store) saveOne(root string, rs *rootState) {
	rs.saveMu.Lock()
	defer rs.saveMu.Unlock()
	rs.mu.Lock()
	n, dirty := rs.cache, rs.dirty
	rs.dirty = false
	rs.mu.Unlock()
	if !dirty || n == nil {
		return
	}
	if err := writeStatCache(s.cachePath(root), n, s.scanPrint()); err != nil {
		s.log.Warn("could not save snapshot stat cache", "root", root, "err", err)
	}
}

// flushCaches saves every changed cache now (Close; tests).
func (s *Store) flushCaches() {
	s.rootsMu.Lock()
	roots := make(map[string]*rootState, len(s.roots))
	for k, v := range s.roots {
		roots[k] = v
	}
	s.rootsMu.Unlock()
	for root, rs := range roots {
		rs.mu.Lock()
		if rs.timer != nil {
			rs.timer.Stop()
		}
		rs.mu.Unlock()
		s.saveOne(root, rs)
	}
}

// fsNow returns the filesystem's current timestamp by touching a file in
// the store, so racy checks compare like with like (the kernel's coarse
// file clock can lag the wall clock).
func (s *Store) fsNow() int64 {
	if _, err := s.stamp.WriteAt([]byte{'x'}, 0); err == nil {
		var st unix.Stat_t
		if unix.Fstat(int(s.stamp.Fd()), &st) == nil {
			return statKeyOf(&st).mtime
		}
	}
	return 0 // everything counts as racy: correct, only slower
}

func (s *Store) newScanner(ctx context.Context, b *pack.Batch, root string, hash bool) *scanner {
	return &scanner{
		ctx: ctx, b: b, ex: s.ex, maxFile: s.opts.MaxFileSize, cloneMin: s.opts.CloneMinSize,
		stamp: s.fsNow(), skipDev: s.selfDev, skipIno: s.selfIno, hash: hash,
		sem: make(chan struct{}, s.opts.Workers), root: root, sharedFS: s.sharedFS,
	}
}

// object reads a stored object. The store's report of a missing one
// becomes a MissingObjectError, the type this package's callers match (and
// fill with a path where one is known).
func (s *Store) object(h Hash) ([]byte, error) {
	data, err := s.objs.Get(h)
	if miss, ok := errors.AsType[*pack.MissingError](err); ok {
		return nil, &MissingObjectError{Hash: miss.Key}
	}
	return data, err
}

// readTree loads a tree object, memoised (trees are immutable).
func (s *Store) readTree(h Hash) ([]Entry, error) {
	if v, ok := s.trees.Load(h); ok {
		return v.([]Entry), nil
	}
	data, err := s.object(h)
	if err != nil {
		return nil, err
	}
	es, err := decodeTree(data)
	if err != nil {
		return nil, err
	}
	if s.treeN.Add(1) > 50000 {
		s.trees.Clear()
		s.treeN.Store(0)
	}
	s.trees.Store(h, es)
	return es, nil
}

// Budget is the stored bytes one workspace root's checkpoints may reach
// (negative: unlimited).
func (s *Store) Budget() int64 { return s.opts.BudgetBytes }
