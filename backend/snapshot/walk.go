package snapshot

import (
	"context"
	"errors"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/gatehouse-dev/gatehouse/backend/snapshot/pack"
)

// scanner reads one workspace root into nodes, reusing cached nodes whose
// stat is unchanged and storing new content into a batch. With hash=false it
// only classifies entries (Preflight).
type scanner struct {
	ctx      context.Context
	b        *pack.Batch
	ex       *excluder
	maxFile  int64
	cloneMin int64
	stamp    int64 // filesystem time at scan start; see racy
	skipDev  uint64
	skipIno  uint64
	hash     bool
	sem      chan struct{}

	mu     sync.Mutex
	unrest []NotRestorable
	root   string

	files, dirs, links, hashed atomic.Int64
	bytes, hashedBytes         atomic.Int64
	listed                     atomic.Int64 // directories read with getdents

	sharedFS   func(fd int) bool
	sharedDevs sync.Map // device -> bool: sharedFS, asked once per device
}

// onSharedFS reports whether fd, on device dev, is on a filesystem where
// a cached listing is not trusted.
func (s *scanner) onSharedFS(fd int, dev uint64) bool {
	if v, ok := s.sharedDevs.Load(dev); ok {
		return v.(bool)
	}
	v := s.sharedFS != nil && s.sharedFS(fd)
	s.sharedDevs.Store(dev, v)
	return v
}

func (s *scanner) note(rel string, size int64, r Reason, detail string) {
	s.mu.Lock()
	s.unrest = append(s.unrest, NotRestorable{Root: s.root, Path: rel, Size: size, Kind: reasonName(r), Detail: detail})
	s.mu.Unlock()
}

// spawn runs f on another goroutine when a slot is free, else inline, so
// the walk uses all cores without unbounded goroutines or open fds.
func (s *scanner) spawn(wg *sync.WaitGroup, f func()) {
	select {
	case s.sem <- struct{}{}:
		wg.Add(1)
		go func() {
			defer func() { <-s.sem; wg.Done() }()
			f()
		}()
	default:
		f()
	}
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

func isGone(err error) bool {
	return errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR)
}

var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// readNames lists a directory, sorted.
func readNames(fd int) ([]string, error) {
	var names []string
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	for {
		n, err := unix.ReadDirent(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			break
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
	}
	sort.Strings(names)
	return names, nil
}

// scanDir scans the open directory fd (owned and closed here) at rel; key
// is the stat of fd itself.
//
// When the directory's own stat equals the cached one (and was not racy),
// its listing is taken from the cache instead of getdents: creating,
// removing or renaming an entry always updates the directory's mtime and
// ctime (POSIX), and ctime cannot be set from user space. Every entry is
// still fstatat()ed, so content changes are caught exactly as before. This
// is the rule git's untracked cache relies on; readdir on ext4 costs more
// than the stats it saves. On network and FUSE filesystems, where another
// machine or a userspace server may change entries without the stat seen
// here changing, every directory is listed.
func (s *scanner) scanDir(fd int, rel string, self Entry, key statKey, old *node) (*node, error) {
	defer unix.Close(fd)
	if err := s.ctx.Err(); err != nil {
		return nil, err
	}
	s.dirs.Add(1)
	if old != nil && old.e.Kind != KindDir {
		old = nil
	}
	var names []string
	listed := old != nil && !old.racy && old.st == key && !s.onSharedFS(fd, key.dev)
	n := 0
	if listed {
		n = len(old.kids)
	} else {
		var err error
		s.listed.Add(1)
		if names, err = readNames(fd); err != nil {
			return s.unreadable(rel, self.Name, 0, err), nil
		}
		n = len(names)
	}
	kids := make([]*node, n)
	var errs []error
	var errMu sync.Mutex
	setErr := func(err error) {
		errMu.Lock()
		errs = append(errs, err)
		errMu.Unlock()
	}
	var wg sync.WaitGroup
	var files, bytes int64
	var nameBuf [256]byte
	j := 0 // merge cursor into old.kids (both sorted by name)
	for i := range n {
		var name string
		var oldKid *node
		if listed {
			oldKid = old.kids[i]
			name = oldKid.e.Name
		} else {
			name = names[i]
			if old != nil {
				for j < len(old.kids) && old.kids[j].e.Name < name {
					j++
				}
				if j < len(old.kids) && old.kids[j].e.Name == name {
					oldKid = old.kids[j]
				}
			}
		}
		var st unix.Stat_t
		if err := lstatAt(fd, name, &nameBuf, &st); err != nil {
			if !isGone(err) {
				kids[i] = s.unreadable(joinRel(rel, name), name, 0, err)
			}
			continue
		}
		isDir := st.Mode&unix.S_IFMT == unix.S_IFDIR
		if s.ex.matchIn(rel, name, isDir) {
			continue
		}
		if isDir {
			if uint64(st.Dev) == s.skipDev && st.Ino == s.skipIno {
				continue // the snapshot store itself; never snapshot it
			}
			i, name := i, name
			s.spawn(&wg, func() {
				k, err := s.openAndScan(fd, joinRel(rel, name), name, oldKid)
				if err != nil {
					setErr(err)
				}
				kids[i] = k
			})
			continue
		}
		if oldKid != nil && !oldKid.racy && oldKid.st == statKeyOf(&st) && s.reusable(oldKid) {
			kids[i] = oldKid
			if oldKid.e.Kind == KindFile {
				files++
				bytes += oldKid.e.Size
			} else if oldKid.e.Kind == KindSymlink {
				s.links.Add(1)
			}
			continue
		}
		i, name := i, name
		s.spawn(&wg, func() {
			k, err := s.scanLeaf(fd, joinRel(rel, name), name, &st)
			if err != nil {
				setErr(err)
			}
			if k != nil {
				s.count(k)
			}
			kids[i] = k
		})
	}
	s.files.Add(files)
	s.bytes.Add(bytes)
	wg.Wait()
	if len(errs) > 0 {
		return nil, errs[0]
	}
	out := kids[:0]
	for _, k := range kids {
		if k != nil {
			out = append(out, k)
			if k.e.Kind == KindUnrestorable {
				s.note(joinRel(rel, k.e.Name), k.e.Size, k.e.Reason, k.detail)
			}
		}
	}
	return s.finishDir(self, key, out, old)
}

func (s *scanner) count(n *node) {
	switch n.e.Kind {
	case KindFile:
		s.files.Add(1)
		s.bytes.Add(n.e.Size)
	case KindSymlink:
		s.links.Add(1)
	}
}

// reusable says a cached node can stand for the file without reading it.
// Cached hashes are always stored: caches are adopted only after their
// batch commits, and GC strips swept hashes from them (dropSwept).
func (s *scanner) reusable(n *node) bool {
	switch n.e.Kind {
	case KindFile, KindSymlink:
		return true
	case KindUnrestorable:
		return n.e.Reason == ReasonTooLarge
	}
	return false
}

func (s *scanner) openAndScan(parent int, rel, name string, old *node) (*node, error) {
	fd, err := unix.Openat(parent, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		if isGone(err) || errors.Is(err, unix.ELOOP) {
			return nil, nil
		}
		return s.unreadable(rel, name, 0, err), nil
	}
	// The stat of what was opened, not of the name a moment earlier: the
	// cached listing is trusted only for this very directory.
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return s.unreadable(rel, name, 0, err), nil
	}
	return s.scanDir(fd, rel, Entry{Name: name, Kind: KindDir, Perm: uint32(st.Mode & 07777)}, statKeyOf(&st), old)
}

func (s *scanner) unreadable(rel, name string, size int64, err error) *node {
	return &node{e: Entry{Name: name, Kind: KindUnrestorable, Reason: ReasonUnreadable, Size: size}, detail: err.Error()}
}

// finishDir builds (or reuses) the directory's tree object.
func (s *scanner) finishDir(self Entry, key statKey, kids []*node, old *node) (*node, error) {
	racy := s.isRacy(key)
	if old != nil && old.e.Kind == KindDir && old.e.Perm == self.Perm && !old.e.Hash.IsZero() && len(old.kids) == len(kids) {
		same := true
		for i := range kids {
			if kids[i] != old.kids[i] {
				same = false
				break
			}
		}
		if same {
			if old.st == key && old.racy == racy {
				return old, nil
			}
			n := *old // same tree; only the directory's stat moved on
			n.st, n.racy = key, racy
			return &n, nil
		}
	}
	n := &node{e: self, st: key, racy: racy, kids: kids}
	if !s.hash {
		return n, nil
	}
	es := make([]Entry, len(kids))
	for i, k := range kids {
		es[i] = k.e
	}
	data := encodeTree(es)
	n.e.Hash = hashBytes(data)
	n.e.Size = 0
	return n, s.b.PutTree(n.e.Hash, data)
}

// scanLeaf reads a non-directory entry whose stat is st.
func (s *scanner) scanLeaf(dirfd int, rel, name string, st *unix.Stat_t) (*node, error) {
	key := statKeyOf(st)
	perm := uint32(st.Mode & 07777)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		n := &node{e: Entry{Name: name, Kind: KindSymlink, Perm: perm, Size: st.Size}, st: key, racy: s.isRacy(key)}
		if !s.hash {
			return n, nil
		}
		target, err := readlinkat(dirfd, name)
		if err != nil {
			if isGone(err) {
				return nil, nil
			}
			return s.unreadable(rel, name, st.Size, err), nil
		}
		n.e.Hash = hashBytes(target)
		s.hashed.Add(1)
		return n, s.b.Put(n.e.Hash, target)
	case unix.S_IFREG:
		if st.Size > s.maxFile {
			return &node{e: Entry{Name: name, Kind: KindUnrestorable, Reason: ReasonTooLarge, Perm: perm, Size: st.Size}, st: key}, nil
		}
		if !s.hash {
			if err := unix.Faccessat(dirfd, name, unix.R_OK, unix.AT_EACCESS); err != nil && !isGone(err) {
				return s.unreadable(rel, name, st.Size, err), nil
			}
			return &node{e: Entry{Name: name, Kind: KindFile, Perm: perm, Size: st.Size}, st: key}, nil
		}
		return s.hashFile(dirfd, rel, name)
	default:
		return &node{e: Entry{Name: name, Kind: KindUnrestorable, Reason: ReasonSpecial, Perm: perm}, st: key}, nil
	}
}

// isRacy applies git's racy-timestamp rule: a file changed in the same
// clock tick as the scan could change again without its stat changing.
func (s *scanner) isRacy(k statKey) bool { return k.mtime >= s.stamp || k.ctime >= s.stamp }

func (s *scanner) hashFile(dirfd int, rel, name string) (*node, error) {
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		if isGone(err) || errors.Is(err, unix.ELOOP) {
			return nil, nil
		}
		return s.unreadable(rel, name, 0, err), nil
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return s.unreadable(rel, name, 0, err), nil
	}
	key := statKeyOf(&st)
	perm := uint32(st.Mode & 07777)
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return &node{e: Entry{Name: name, Kind: KindUnrestorable, Reason: ReasonSpecial, Perm: perm}, st: key}, nil
	}
	if st.Size > s.maxFile {
		return &node{e: Entry{Name: name, Kind: KindUnrestorable, Reason: ReasonTooLarge, Perm: perm, Size: st.Size}, st: key}, nil
	}
	n := &node{e: Entry{Name: name, Kind: KindFile, Perm: perm}, st: key, racy: s.isRacy(key)}
	if st.Size >= s.cloneMin {
		h, size, ok, err := s.b.Clone(fd)
		if err != nil {
			return nil, err
		}
		if ok {
			n.e.Hash, n.e.Size = h, size
			s.hashed.Add(1)
			s.hashedBytes.Add(size)
			return n, nil
		}
	}
	data, err := readAllFd(fd, st.Size, s.maxFile)
	if err != nil {
		if errors.Is(err, ErrTooLarge) {
			return &node{e: Entry{Name: name, Kind: KindUnrestorable, Reason: ReasonTooLarge, Perm: perm, Size: int64(len(data))}, st: key}, nil
		}
		return s.unreadable(rel, name, st.Size, err), nil
	}
	var after unix.Stat_t
	if unix.Fstat(fd, &after) != nil || statKeyOf(&after) != key {
		n.racy = true // changed while we read it: never trust this stat
	}
	n.e.Size = int64(len(data))
	n.e.Hash = hashBytes(data)
	s.hashed.Add(1)
	s.hashedBytes.Add(n.e.Size)
	return n, s.b.Put(n.e.Hash, data)
}

// readAllFd reads a regular file expected to be size bytes, tolerating
// growth up to limit. The spare byte of capacity lets the EOF read land
// without reallocating in the common case.
func readAllFd(fd int, size, limit int64) ([]byte, error) {
	buf := make([]byte, 0, size+1)
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > limit {
				return buf, ErrTooLarge
			}
			buf = append(buf, make([]byte, 64<<10)...)[:len(buf)]
		}
		n, err := unix.Pread(fd, buf[len(buf):cap(buf)], int64(len(buf)))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			if int64(len(buf)) > limit {
				return buf, ErrTooLarge
			}
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}

func readlinkat(dirfd int, name string) ([]byte, error) {
	for size := 256; ; size *= 2 {
		buf := make([]byte, size)
		n, err := unix.Readlinkat(dirfd, name, buf)
		if err != nil {
			return nil, err
		}
		if n < size {
			return buf[:n], nil
		}
	}
}

// splitRel splits a clean slash path into its parent and name.
func splitRel(rel string) (string, string) {
	i := strings.LastIndexByte(rel, '/')
	if i < 0 {
		return "", rel
	}
	return rel[:i], rel[i+1:]
}
