package protect

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Finding the secrets means walking the whole workspace before every
// command. So the walk keeps each directory's listing and lists a
// directory again only when its inode, mtime or ctime changed (adding,
// removing or renaming an entry changes its directory's mtime): an
// unchanged tree costs one lstat per directory.

// skipDirs are never walked. Git's own files are protected by name.
// Dependency trees are most of a big workspace, and the keys and
// certificates in them belong to the packages (certifi's cacert.pem,
// test fixtures), which break when hidden; a command cannot move a
// hidden secret into one, since it cannot read, rename or link it.
var skipDirs = map[string]bool{".git": true, "node_modules": true, "site-packages": true, "dist-packages": true}

// MaxWalkEntries bounds one walk. A bigger workspace is an error, not a
// partial list: a secret past the limit would be readable.
const MaxWalkEntries = 4 << 20

// racyWindow: a directory modified this close to the moment it was
// listed may change again within its timestamp's granularity without
// its mtime moving, so its listing is not trusted next time (git's
// "racy" rule). Two seconds covers the coarsest filesystems.
const racyWindow = 2 * time.Second

// ErrTooManyFiles means a workspace is too big to search for secrets.
var ErrTooManyFiles = errors.New("too many files to search for secrets")

// Finder finds the secret files of workspaces. It is safe for concurrent
// use; walks of one workspace take turns.
type Finder struct {
	mu  sync.Mutex
	wss map[string]*wsCache
}

// Secrets is the process-wide finder the backends use.
var Secrets = &Finder{}

type wsCache struct {
	mu   sync.Mutex
	dirs map[string]*listing
}

// dirKey is what must be unchanged for a listing to be reused.
type dirKey struct {
	dev, ino     uint64
	mtime, ctime int64
}

type listing struct {
	key     dirKey
	racy    bool
	secrets []string // names of entries on the secret list
	links   []string // names of symbolic links on the secret list
	subdirs []string // names of directories to walk
	entries int
}

// Found is one workspace's secrets, less the exposed ones.
type Found struct {
	// Files are secret files, and the files secret-named links inside
	// the workspace point to.
	Files []string
	// Dirs could not be listed: what they hold is unknown, so they are
	// hidden whole.
	Dirs []string
	// Walked counts the directories visited and Listed those read anew.
	Walked, Listed int
}

// Find walks workspace ws (absolute, resolved).
func (f *Finder) Find(ws string, e Exposure) (Found, error) {
	f.mu.Lock()
	if f.wss == nil {
		f.wss = map[string]*wsCache{}
	}
	c := f.wss[ws]
	if c == nil {
		c = &wsCache{}
		f.wss[ws] = c
	}
	f.mu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.walk(ws, e)
}

type walkDir struct{ abs, rel string }

// walkWorkers is how many directories are looked at at once: a cached
// walk is one lstat per directory, and those run in parallel.
var walkWorkers = min(runtime.GOMAXPROCS(0), 8)

func (c *wsCache) walk(ws string, e Exposure) (Found, error) {
	var (
		mu      sync.Mutex
		cond    = sync.NewCond(&mu)
		queue   = []walkDir{{ws, ""}}
		busy    int
		out     Found
		next    = make(map[string]*listing, len(c.dirs))
		entries int
		fail    error
	)
	// visit handles one directory; it is called without mu held.
	visit := func(d walkDir) {
		l, listed, err := c.list(d.abs, d.rel)
		var files, subdirs []string
		if err == nil {
			for _, n := range l.secrets {
				if !e.Exposes(joinSlash(d.rel, n)) {
					files = append(files, filepath.Join(d.abs, n))
				}
			}
			for _, n := range l.links {
				if e.Exposes(joinSlash(d.rel, n)) {
					continue
				}
				// The link reads through to its target, which is what must
				// be hidden; outside the workspace it is not visible.
				if t, err := filepath.EvalSymlinks(filepath.Join(d.abs, n)); err == nil && t != ws && within(t, ws) {
					files = append(files, t)
				}
			}
		}
		mu.Lock()
		defer mu.Unlock()
		out.Walked++
		if listed {
			out.Listed++
		}
		switch {
		case errors.Is(err, fs.ErrNotExist) && d.abs != ws:
			return // removed while walking: nothing there to hide
		case err != nil && d.abs == ws:
			fail = fmt.Errorf("list workspace %s: %w", ws, err)
			return
		case err != nil:
			out.Dirs = append(out.Dirs, d.abs)
			return
		}
		next[d.abs] = l
		if entries += l.entries; entries > MaxWalkEntries && fail == nil {
			fail = fmt.Errorf("%s has more than %d entries outside dependency directories: %w", ws, MaxWalkEntries, ErrTooManyFiles)
		}
		out.Files = append(out.Files, files...)
		for _, n := range l.subdirs {
			subdirs = append(subdirs, n)
			queue = append(queue, walkDir{filepath.Join(d.abs, n), joinSlash(d.rel, n)})
		}
		if len(subdirs) > 0 {
			cond.Broadcast()
		}
	}
	var wg sync.WaitGroup
	for range walkWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			for {
				for len(queue) == 0 && busy > 0 && fail == nil {
					cond.Wait()
				}
				if len(queue) == 0 || fail != nil {
					cond.Broadcast()
					mu.Unlock()
					return
				}
				d := queue[len(queue)-1]
				queue = queue[:len(queue)-1]
				busy++
				mu.Unlock()
				visit(d)
				mu.Lock()
				busy--
				if busy == 0 && len(queue) == 0 {
					cond.Broadcast()
				}
			}
		}()
	}
	wg.Wait()
	if fail != nil {
		return Found{}, fail
	}
	c.dirs = next
	sort.Strings(out.Files)
	out.Files = dedupSorted(out.Files)
	sort.Strings(out.Dirs)
	return out, nil
}

// list returns dir's listing (rel is its path in the workspace), from
// the cache when dir is unchanged; listed reports a fresh one. c.dirs is
// only read while walks take turns.
func (c *wsCache) list(dir, rel string) (l *listing, listed bool, err error) {
	key, shared, err := statDir(dir)
	if err != nil {
		return nil, false, err
	}
	if l := c.dirs[dir]; l != nil && l.key == key && !l.racy && !shared {
		return l, false, nil
	}
	listedAt := time.Now()
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, false, err
	}
	l = &listing{key: key, entries: len(ents), racy: time.Unix(0, key.mtime).After(listedAt.Add(-racyWindow))}
	for _, ent := range ents {
		n := ent.Name()
		switch t := ent.Type(); {
		case t.IsDir():
			if !skipDirs[n] {
				l.subdirs = append(l.subdirs, n)
			}
		case !IsSecret(joinSlash(rel, n)):
		case t.IsRegular() && publicPEM(filepath.Join(dir, n)):
			// Certificates alone (a test CA, a bundle) are public.
		case t&fs.ModeSymlink != 0:
			l.links = append(l.links, n)
		default:
			l.secrets = append(l.secrets, n)
		}
	}
	return l, true, nil
}

// statDir reads what identifies dir's current listing, and whether it
// lies on a filesystem where that is not to be trusted.
func statDir(dir string) (dirKey, bool, error) {
	var st unix.Stat_t
	if err := unix.Lstat(dir, &st); err != nil {
		return dirKey{}, false, &fs.PathError{Op: "lstat", Path: dir, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return dirKey{}, false, &fs.PathError{Op: "walk", Path: dir, Err: fs.ErrNotExist}
	}
	k := dirKey{
		dev: uint64(st.Dev), ino: uint64(st.Ino),
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(),
	}
	return k, sharedDev(k.dev, dir), nil
}

func joinSlash(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

func dedupSorted(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
