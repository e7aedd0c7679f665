package export

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/audit"
	"github.com/gatehouse-dev/gatehouse/backend/db"
)

// newStore opens a fresh database and audit store, closed at cleanup.
func newStore(t testing.TB) (*audit.Store, *sql.DB) {
	t.Helper()
	return newStoreIn(t, t.TempDir())
}

// newStoreIn is newStore with the database in dir.
func newStoreIn(t testing.TB, dir string) (*audit.Store, *sql.DB) {
	t.Helper()
	sqlDB, err := db.Open(t.Context(), filepath.Join(dir, "gatehouse.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sqlDB.Close() })
	st, err := audit.Open(t.Context(), sqlDB, nil, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, sqlDB
}

// fill appends n tool events (queued, then one durable append to wait on).
func fill(t testing.TB, st *audit.Store, n int) {
	t.Helper()
	ctx := context.Background()
	for i := range n - 1 {
		st.Queue(ctx, audit.Event{Session: "s_test", CallID: fmt.Sprintf("c%d", i), Kind: "tool.call", Actor: "agent:claude-code",
			Payload: []byte(fmt.Sprintf(`{"tool":"run_command","args":{"argv":["go","test","./..."]},"n":%d}`, i))})
	}
	if _, err := st.Append(ctx, audit.Event{Session: "s_test", Kind: "tool.result", Actor: "system", Payload: []byte(`{"tool":"run_command","outcome":"ok"}`)}); err != nil {
		t.Fatal(err)
	}
}

// collector is an OTLP/HTTP logs endpoint that records the gatehouse.seq
// of every record it accepts; answer decides each response.
type collector struct {
	*httptest.Server
	mu      sync.Mutex
	seqs    []int64
	records []map[string]any
	headers []http.Header
	answer  func(n int) (code int, delay time.Duration, body string) // n: request number from 0
	n       int
}

func newCollector(t testing.TB) *collector {
	c := &collector{}
	c.Server = httptest.NewServer(http.HandlerFunc(c.serve))
	t.Cleanup(c.Close)
	return c
}

func (c *collector) serve(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	n := c.n
	c.n++
	answer := c.answer
	c.mu.Unlock()
	code, delay, body := http.StatusOK, time.Duration(0), `{"partialSuccess":{}}`
	if answer != nil {
		code, delay, body = answer(n)
	}
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
	raw, _ := io.ReadAll(r.Body)
	if code/100 == 2 {
		var req struct {
			ResourceLogs []struct {
				ScopeLogs []struct {
					LogRecords []map[string]any `json:"logRecords"`
				} `json:"scopeLogs"`
			} `json:"resourceLogs"`
		}
		if err := json.Unmarshal(raw, &req); err != nil {
			http.Error(w, "not OTLP JSON: "+err.Error(), http.StatusBadRequest)
			return
		}
		c.mu.Lock()
		c.headers = append(c.headers, r.Header.Clone())
		for _, rl := range req.ResourceLogs {
			for _, sl := range rl.ScopeLogs {
				for _, rec := range sl.LogRecords {
					c.records = append(c.records, rec)
					c.seqs = append(c.seqs, seqOf(rec))
				}
			}
		}
		c.mu.Unlock()
	}
	w.WriteHeader(code)
	io.WriteString(w, body)
}

func seqOf(rec map[string]any) int64 {
	for _, a := range rec["attributes"].([]any) {
		kv := a.(map[string]any)
		if kv["key"] == "gatehouse.seq" {
			n, _ := strconv.ParseInt(kv["value"].(map[string]any)["intValue"].(string), 10, 64)
			return n
		}
	}
	return -1
}

func attr(rec map[string]any, key string) string {
	for _, a := range rec["attributes"].([]any) {
		kv := a.(map[string]any)
		if kv["key"] == key {
			v := kv["value"].(map[string]any)
			if s, ok := v["stringValue"].(string); ok {
				return s
			}
			return fmt.Sprint(v["intValue"])
		}
	}
	return ""
}

// distinct is the sorted set of seqs received (duplicates are allowed:
// delivery is at least once).
func (c *collector) distinct() []int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := map[int64]bool{}
	for _, s := range c.seqs {
		m[s] = true
	}
	out := make([]int64, 0, len(m))
	for s := range m {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// inOrder reports whether seqs arrived in non-decreasing order apart from
// whole batches sent again.
func (c *collector) firstArrivalsInOrder() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := map[int64]bool{}
	var last int64
	for _, s := range c.seqs {
		if seen[s] {
			continue
		}
		if s < last {
			return false
		}
		seen[s], last = true, s
	}
	return true
}

// run starts r until the test ends.
func run(t testing.TB, r *Runner) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

func fast(o Options) Options {
	o.Poll, o.MinBackoff, o.MaxBackoff = 10*time.Millisecond, 5*time.Millisecond, 50*time.Millisecond
	return o
}

var logMu sync.Mutex

// lockedWriter lets a runner's goroutines log into a builder a test reads.
type lockedWriter struct{ w *strings.Builder }

func (l *lockedWriter) Write(p []byte) (int, error) {
	logMu.Lock()
	defer logMu.Unlock()
	return l.w.Write(p)
}

func lockedString(b *strings.Builder) string {
	logMu.Lock()
	defer logMu.Unlock()
	return b.String()
}
