package gitguard

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

const (
	// changeMask is every event that means something was written,
	// created, removed, renamed, chmodded or (re)linked. Reads are left
	// out: git reads its config and hooks on every command.
	changeMask = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE | unix.IN_CREATE |
		unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF
)

// watcher reports the changes to guarded paths until one counts.
type watcher struct {
	f     *os.File
	mu    sync.Mutex
	byWD  map[int32]watchTarget
	fired func(path string)
	done  chan struct{}
	keep  keepSet
}

// watchTarget is what one inotify watch stands for: a guarded tree
// (every event counts), the parent of guarded names (only events about
// those names count), or both.
type watchTarget struct {
	tree  string            // the guarded path, when the watch is on one
	names map[string]string // entry name -> guarded path, for parents
	// kept are the entries left to the run in a watched directory:
	// only their coming and going counts.
	kept map[string]bool
}

// watch starts watching paths; fired is called (from another
// goroutine) with each guarded path that changed, until it returns true:
// the change counted.
func watch(paths []string, keep keepSet, fired func(string) bool) (*watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("inotify: %w", err)
	}
	w := &watcher{f: os.NewFile(uintptr(fd), "inotify"), byWD: map[int32]watchTarget{}, done: make(chan struct{}), keep: keep}
	var mu sync.Mutex
	counted := false
	w.fired = func(p string) {
		mu.Lock()
		defer mu.Unlock()
		if !counted {
			counted = fired(p)
		}
	}
	parents := map[string]map[string]string{}
	for _, p := range paths {
		dir, name := anchor(p)
		if parents[dir] == nil {
			parents[dir] = map[string]string{}
		}
		parents[dir][name] = p
	}
	for dir, names := range parents {
		if err := w.add(dir, unix.IN_CREATE|unix.IN_DELETE|unix.IN_MOVED_FROM|unix.IN_MOVED_TO|unix.IN_ATTRIB|unix.IN_MODIFY|unix.IN_CLOSE_WRITE|unix.IN_ONLYDIR, watchTarget{names: names}); err != nil {
			w.close()
			return nil, err
		}
	}
	for _, p := range paths {
		if err := w.addTree(p, keep, 0); err != nil {
			w.close()
			return nil, err
		}
	}
	go w.read()
	return w, nil
}

// rearm watches what now stands at guarded path p (new inodes, after a
// rewrite), as watch did at the start.
func (w *watcher) rearm(p string) error { return w.addTree(p, w.keep, 0) }

// anchor is the nearest existing directory above p and the name in it
// that leads to p: creating that name is the first step to creating p.
func anchor(p string) (dir, name string) {
	dir, name = filepath.Dir(p), filepath.Base(p)
	for {
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			return dir, name
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return dir, name
		}
		dir, name = parent, filepath.Base(dir)
	}
}

// addTree watches p and everything below it (files too: a hard link
// elsewhere would change them without an event on their directory).
func (w *watcher) addTree(p string, keep keepSet, n int) error {
	if keep[p] {
		return nil // its name is watched through its parent
	}
	st, err := os.Lstat(p)
	if err != nil || st.Mode()&os.ModeSymlink != 0 {
		return nil // absent, or a link whose replacement the parent watch sees
	}
	if n > maxEntries {
		return nil
	}
	t := watchTarget{tree: p}
	for k := range keep {
		if filepath.Dir(k) == p {
			if t.kept == nil {
				t.kept = map[string]bool{}
			}
			t.kept[filepath.Base(k)] = true
		}
	}
	if err := w.add(p, changeMask|unix.IN_DONT_FOLLOW, t); err != nil {
		return err
	}
	if !st.IsDir() {
		return nil
	}
	ents, err := os.ReadDir(p)
	if err != nil {
		return nil
	}
	for _, e := range ents {
		if err := w.addTree(filepath.Join(p, e.Name()), keep, n+1); err != nil {
			return err
		}
	}
	return nil
}

func (w *watcher) add(p string, mask uint32, t watchTarget) error {
	// One inode can be both a guarded tree and a parent: add to the mask.
	wd, err := unix.InotifyAddWatch(int(w.f.Fd()), p, mask|unix.IN_MASK_ADD)
	if err != nil {
		return fmt.Errorf("watch %s: %w", p, err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	old := w.byWD[int32(wd)]
	if t.tree == "" {
		t.tree = old.tree
	}
	if t.names == nil {
		t.names = old.names
	}
	if t.kept == nil {
		t.kept = old.kept
	}
	w.byWD[int32(wd)] = t
	return nil
}

func (w *watcher) read() {
	defer close(w.done)
	buf := make([]byte, 64<<10)
	for {
		n, err := w.f.Read(buf)
		if err != nil {
			return // closed
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := ""
			if ev.Len > 0 {
				raw := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
				for i, c := range raw {
					if c == 0 {
						raw = raw[:i]
						break
					}
				}
				name = string(raw)
			}
			off += unix.SizeofInotifyEvent + int(ev.Len)
			if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
				w.fired("(too many changes to follow)")
				continue
			}
			if ev.Mask&unix.IN_IGNORED != 0 {
				continue
			}
			w.mu.Lock()
			t, ok := w.byWD[ev.Wd]
			w.mu.Unlock()
			const comesOrGoes = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO
			switch {
			case !ok:
			case t.kept[name] && ev.Mask&comesOrGoes == 0:
			case t.tree != "":
				w.fired(t.tree)
			case t.names[name] != "":
				w.fired(t.names[name])
			}
		}
	}
}

func (w *watcher) close() {
	w.f.Close()
}

// stop ends the watch and waits for its reader.
func (w *watcher) stop() {
	w.close()
	<-w.done
}
