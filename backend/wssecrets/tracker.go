package wssecrets

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/secrets"
	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

const (
	// maxFileBytes bounds how much of one secret file is read: a larger
	// one has only its first MiB's values redacted.
	maxFileBytes = 1 << 20
	// binaryScan is how much is checked for a NUL: a binary file (a
	// .p12 keystore) has no values to find as text, and is skipped.
	binaryScan = 8 << 10
	// maxValues bounds the values all workspaces add to the redactor.
	maxValues = 20000
	// statEvery and scanEvery pace the checks made before a redaction:
	// known files are stat'ed at most this often, and the workspace
	// searched for new secret files less often.
	statEvery = 250 * time.Millisecond
	scanEvery = 2 * time.Second
)

// Tracker keeps the values of the secret files of every workspace a
// session started in, and hands them to a Live redactor.
type Tracker struct {
	live   *secrets.Live
	expose protect.Exposure
	logger *slog.Logger

	mu      sync.Mutex
	ws      map[string]*workspace
	checked atomic.Int64 // unix nanoseconds of the last check
}

type workspace struct {
	files   map[string]file // absolute path
	history []secrets.Value
	scanned time.Time
}

type file struct {
	mtime  time.Time
	size   int64
	values []secrets.Value
}

// New makes a Tracker feeding live; expose are the secrets the person
// lets commands read, whose values are not redacted.
func New(live *secrets.Live, expose protect.Exposure, logger *slog.Logger) *Tracker {
	t := &Tracker{live: live, expose: expose, logger: logger, ws: map[string]*workspace{}}
	live.BeforeUse(t.Refresh)
	return t
}

// Track learns the workspaces' secret values, if it has not yet: their
// secret files now, and the versions git's recent history holds. It
// runs before a session's first call, so the first result is redacted
// too; history is read once per workspace, bounded (see History).
func (t *Tracker) Track(ctx context.Context, roots []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	changed := false
	for _, root := range roots {
		if _, ok := t.ws[root]; ok {
			continue
		}
		w := &workspace{files: map[string]file{}}
		for rel, text := range History(ctx, root, t.expose) {
			w.history = append(w.history, Parse(rel, text)...)
		}
		t.scan(root, w)
		t.ws[root] = w
		changed = true
		t.logger.Debug("workspace secrets read", "workspace", root, "files", len(w.files), "history_values", len(w.history))
	}
	if changed {
		t.publish()
	}
}

// Refresh reads again the secret files that changed since they were
// read, and looks for new ones now and then. It is paced (statEvery),
// and a check already under way is not waited for.
func (t *Tracker) Refresh() {
	now := time.Now()
	if last := t.checked.Load(); now.UnixNano()-last < int64(statEvery) || !t.checked.CompareAndSwap(last, now.UnixNano()) {
		return
	}
	if !t.mu.TryLock() {
		return
	}
	defer t.mu.Unlock()
	changed := false
	for root, w := range t.ws {
		if now.Sub(w.scanned) >= scanEvery {
			changed = t.scan(root, w) || changed
			continue
		}
		for p, f := range w.files {
			if fi, err := os.Stat(p); err != nil || !fi.ModTime().Equal(f.mtime) || fi.Size() != f.size {
				changed = t.read(root, p, w) || changed
			}
		}
	}
	if changed {
		t.publish()
	}
}

// scan finds root's secret files (the sandbox's own list) and reads the
// new and changed ones, forgetting those gone.
func (t *Tracker) scan(root string, w *workspace) bool {
	w.scanned = time.Now()
	found, err := protect.Secrets.Find(root, t.expose)
	if err != nil {
		t.logger.Warn("workspace secrets could not be listed; their values are not redacted until they can be", "workspace", root, "err", err)
		return false
	}
	changed := false
	seen := map[string]bool{}
	for _, p := range found.Files {
		seen[p] = true
		f, ok := w.files[p]
		if fi, err := os.Stat(p); !ok || err != nil || !fi.ModTime().Equal(f.mtime) || fi.Size() != f.size {
			changed = t.read(root, p, w) || changed
		}
	}
	for p := range w.files {
		if !seen[p] {
			delete(w.files, p)
			changed = true
		}
	}
	return changed
}

// read parses one secret file: at most maxFileBytes of it, nothing of a
// binary one. It reports whether its values changed.
func (t *Tracker) read(root, p string, w *workspace) bool {
	old := w.files[p]
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() {
		delete(w.files, p)
		return len(old.values) > 0
	}
	nf := file{mtime: fi.ModTime(), size: fi.Size()}
	if b, err := readHead(p); err == nil && !bytes.Contains(b[:min(len(b), binaryScan)], []byte{0}) {
		rel, _ := filepath.Rel(root, p)
		nf.values = Parse(filepath.ToSlash(rel), b)
	}
	w.files[p] = nf
	return !equalValues(old.values, nf.values)
}

func readHead(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxFileBytes))
}

// publish hands every workspace's values to the redactor, worktree
// files before history (a value keeps the first name it is given).
func (t *Tracker) publish() {
	roots := make([]string, 0, len(t.ws))
	for r := range t.ws {
		roots = append(roots, r)
	}
	sort.Strings(roots)
	var vals []secrets.Value
	for _, r := range roots {
		w := t.ws[r]
		paths := make([]string, 0, len(w.files))
		for p := range w.files {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		for _, p := range paths {
			vals = append(vals, w.files[p].values...)
		}
	}
	for _, r := range roots {
		vals = append(vals, t.ws[r].history...)
	}
	if len(vals) > maxValues {
		t.logger.Warn("the workspaces' secret files hold more values than Gatehouse redacts; the rest are not redacted", "values", len(vals), "kept", maxValues)
		vals = vals[:maxValues]
	}
	t.live.Set(vals)
}

func equalValues(a, b []secrets.Value) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
