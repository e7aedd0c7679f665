package snapshot

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/gatehouse-dev/gatehouse/backend/snapshot/pack"
)

// index holds every checkpoint record, loaded from the per-session logs.
// A log line is "<checksum> <json>\n"; a torn last line (crash mid-append)
// fails its checksum and is ignored, which is safe because the record was
// never acknowledged.
type index struct {
	dir string
	log *slog.Logger

	mu        sync.RWMutex
	byID      map[string]*Checkpoint
	bySession map[string][]*Checkpoint // append order
	files     map[string]*os.File
	// newest is each root's newest checkpoint, so a session's first
	// checkpoint finds its base without reading every one ever made. A
	// root whose newest was pruned is missing until it is asked for.
	newest map[string]*Checkpoint
	stale  map[string]bool
}

type logLine struct {
	Checkpoint *Checkpoint `json:"cp,omitempty"`
	Drop       string      `json:"drop,omitempty"` // pruned checkpoint id
}

func openIndex(dir string, log *slog.Logger) (*index, error) {
	ix := &index{dir: dir, log: log, byID: map[string]*Checkpoint{}, bySession: map[string][]*Checkpoint{},
		files: map[string]*os.File{}, newest: map[string]*Checkpoint{}, stale: map[string]bool{}}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, pack.ClassifyIO("create snapshot index", err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read snapshot index: %w", err)
	}
	// One buffer serves every log: a daemon of some weeks has thousands,
	// and a fresh one each was most of its start.
	buf := make([]byte, 64<<10)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".log") {
			if err := ix.load(filepath.Join(dir, e.Name()), buf); err != nil {
				return nil, err
			}
		}
	}
	return ix, nil
}

func (ix *index) load(path string, buf []byte) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read snapshot index: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(buf, 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		sp := bytes.IndexByte(line, ' ')
		if sp != 16 {
			ix.log.Warn("skipping damaged checkpoint record", "file", path, "line", n)
			continue
		}
		sum := hashBytes(line[sp+1:])
		if hex.EncodeToString(sum[:8]) != string(line[:sp]) {
			ix.log.Warn("skipping damaged checkpoint record", "file", path, "line", n)
			continue
		}
		var ll logLine
		if err := json.Unmarshal(line[sp+1:], &ll); err != nil {
			ix.log.Warn("skipping unreadable checkpoint record", "file", path, "line", n, "err", err)
			continue
		}
		ix.apply(ll)
	}
	return sc.Err()
}

func (ix *index) apply(ll logLine) {
	if c := ll.Checkpoint; c != nil {
		if _, dup := ix.byID[c.ID]; !dup {
			ix.byID[c.ID] = c
			ix.bySession[c.Session] = append(ix.bySession[c.Session], c)
			for _, r := range c.Roots {
				if n := ix.newest[r.Root]; n == nil && !ix.stale[r.Root] || n != nil && c.Time.After(n.Time) {
					ix.newest[r.Root] = c
				}
			}
		}
	}
	if ll.Drop != "" {
		c := ix.byID[ll.Drop]
		if c == nil {
			return
		}
		delete(ix.byID, ll.Drop)
		for _, r := range c.Roots {
			if ix.newest[r.Root] == c {
				delete(ix.newest, r.Root)
				ix.stale[r.Root] = true
			}
		}
		list := ix.bySession[c.Session]
		for i, x := range list {
			if x == c {
				ix.bySession[c.Session] = append(list[:i:i], list[i+1:]...)
				break
			}
		}
	}
}

// maxOpenLogs bounds the session logs kept open for appending: a daemon
// that runs for weeks sees thousands of sessions, and an open file each
// would reach the descriptor limit. A log closed here opens again on its
// session's next checkpoint.
const maxOpenLogs = 32

// keepOpen keeps f open as session's log, first closing another when
// maxOpenLogs are open (whichever the map gives: sessions checkpoint in
// bursts, so any other is as good a guess as the oldest). ix.mu is held.
func (ix *index) keepOpen(session string, f *os.File) {
	if len(ix.files) >= maxOpenLogs {
		for k, old := range ix.files {
			old.Close()
			delete(ix.files, k)
			break
		}
	}
	ix.files[session] = f
}

func sessionFile(session string) string {
	h := hashBytes([]byte(session))
	return hex.EncodeToString(h[:16]) + ".log"
}

// append writes records durably (fsync) and only then makes them visible.
func (ix *index) append(session string, lines ...logLine) error {
	var buf bytes.Buffer
	for _, ll := range lines {
		js, err := json.Marshal(ll)
		if err != nil {
			return err
		}
		sum := hashBytes(js)
		buf.WriteString(hex.EncodeToString(sum[:8]))
		buf.WriteByte(' ')
		buf.Write(js)
		buf.WriteByte('\n')
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	f := ix.files[session]
	if f == nil {
		path := filepath.Join(ix.dir, sessionFile(session))
		_, statErr := os.Stat(path)
		var err error
		f, err = os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return pack.ClassifyIO("open checkpoint index", err)
		}
		if os.IsNotExist(statErr) {
			if err := pack.SyncDir(ix.dir); err != nil {
				f.Close()
				return pack.ClassifyIO("sync checkpoint index", err)
			}
		}
		ix.keepOpen(session, f)
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		return pack.ClassifyIO("write checkpoint index", err)
	}
	if err := f.Sync(); err != nil {
		return pack.ClassifyIO("sync checkpoint index", err)
	}
	for _, ll := range lines {
		ix.apply(ll)
	}
	return nil
}

func (ix *index) get(id string) *Checkpoint {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.byID[id]
}

func (ix *index) list(session string) []*Checkpoint {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return append([]*Checkpoint(nil), ix.bySession[session]...)
}

func (ix *index) all() []*Checkpoint {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	out := make([]*Checkpoint, 0, len(ix.byID))
	for _, c := range ix.byID {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	return out
}

// latestTree is the newest tree of root, preferring the given session.
func (ix *index) latestTree(session, root string) (Hash, bool) {
	ix.mu.RLock()
	list := ix.bySession[session]
	for i := len(list) - 1; i >= 0; i-- {
		if h, ok := list[i].tree(root); ok {
			ix.mu.RUnlock()
			return h, true
		}
	}
	c, stale := ix.newest[root], ix.stale[root]
	ix.mu.RUnlock()
	if stale {
		c = ix.renewNewest(root)
	}
	if c == nil {
		return Hash{}, false
	}
	return c.tree(root)
}

// renewNewest finds root's newest checkpoint again, after a prune
// dropped the one the index held.
func (ix *index) renewNewest(root string) *Checkpoint {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if !ix.stale[root] {
		return ix.newest[root]
	}
	var best *Checkpoint
	for _, c := range ix.byID {
		if _, ok := c.tree(root); ok && (best == nil || c.Time.After(best.Time)) {
			best = c
		}
	}
	delete(ix.stale, root)
	if best != nil {
		ix.newest[root] = best
	}
	return best
}

func (ix *index) close() {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for k, f := range ix.files {
		f.Close()
		delete(ix.files, k)
	}
}
