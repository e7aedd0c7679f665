package export

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/audit"
	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

// A collector down for longer than the backlog bound: the cursor skips the
// oldest events (down to 90% of the bound) with an export.dropped row (which is exported too), the
// audit keeps every row, and the rest arrives once it is back.
func TestBacklogBoundDropsOldestWithAnAuditRow(t *testing.T) {
	st, sqlDB := newStore(t)
	fill(t, st, 300)
	var up atomic.Bool
	col := newCollector(t)
	col.answer = func(int) (int, time.Duration, string) {
		if up.Load() {
			return http.StatusOK, 0, "{}"
		}
		return http.StatusBadGateway, 0, "no upstream"
	}
	sink, _ := NewOTLP(OTLPOptions{Endpoint: col.URL})
	r := New(fast(Options{Audit: st, DB: sqlDB, Sinks: []Sink{sink}, MaxBacklog: 100}))
	run(t, r)
	var dropped audit.Event
	waitfor.For(t, 10*time.Second, "an export.dropped row", func() bool {
		evs, err := st.Query(t.Context(), audit.Query{Filter: audit.Filter{Kind: "export.dropped"}})
		if err != nil || len(evs) == 0 {
			return false
		}
		dropped = evs[0]
		return true
	})
	var p struct {
		Sink       string `json:"sink"`
		AfterSeq   int64  `json:"after_seq"`
		ThroughSeq int64  `json:"through_seq"`
		Count      int64  `json:"count"`
	}
	if err := json.Unmarshal(dropped.Payload, &p); err != nil || p.Sink != "otlp" || p.AfterSeq != 0 || p.ThroughSeq != 210 || p.Count != 210 {
		t.Fatalf("export.dropped payload = %s (%v)", dropped.Payload, err)
	}
	waitfor.ForState(t, 5*time.Second, "a failing status that counts the drop", func() (bool, string) {
		s, err := r.Status(t.Context())
		if err != nil {
			return false, err.Error()
		}
		return s[0].State == StateFailing && strings.Contains(s[0].LastError, "502") && s[0].Dropped == 210, fmt.Sprintf("%+v", s[0])
	})
	up.Store(true)
	head, _, _ := st.Head(t.Context())
	waitfor.For(t, 10*time.Second, "the rest at the collector", func() bool {
		got := col.distinct()
		return len(got) > 0 && got[len(got)-1] >= head
	})
	got := col.distinct()
	if got[0] != 211 || int64(len(got)) != head-210 {
		t.Fatalf("after the drop the collector got %d..%d (%d), want 211..%d", got[0], got[len(got)-1], len(got), head)
	}
	if drops, _ := st.Query(t.Context(), audit.Query{Filter: audit.Filter{Kind: "export.dropped"}}); len(drops) != 1 {
		t.Fatalf("%d export.dropped rows, want 1: a sink that stays down must not write one per retry", len(drops))
	}
	if n, _ := st.Query(t.Context(), audit.Query{Limit: audit.MaxLimit}); len(n) != int(head) {
		t.Fatalf("the audit has %d rows, want all %d: the audit itself is never dropped", len(n), head)
	}
}

// An OCSF file that cannot be written: a failing status with the reason,
// no crash, and delivery once it can be.
func TestOCSFFileNotWritable(t *testing.T) {
	st, sqlDB := newStore(t)
	fill(t, st, 50)
	dir := t.TempDir()
	blocker := filepath.Join(dir, "logs")
	// A file where the directory should be: unwritable even for root.
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(blocker, "gatehouse.ocsf.jsonl")
	r := New(fast(Options{Audit: st, DB: sqlDB, Sinks: []Sink{NewOCSFFile(path, "test")}}))
	run(t, r)
	waitfor.For(t, 5*time.Second, "a failing status", func() bool {
		s, err := r.Status(t.Context())
		return err == nil && s[0].State == StateFailing && strings.Contains(s[0].LastError, "open the OCSF file") && s[0].Backlog == 50
	})
	if err := os.Remove(blocker); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(blocker, 0o700); err != nil {
		t.Fatal(err)
	}
	waitfor.For(t, 5*time.Second, "the file written", func() bool {
		s, err := r.Status(t.Context())
		return err == nil && s[0].SentSeq == 50
	})
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(string(b), "\n"); lines != 50 {
		t.Fatalf("the OCSF file has %d lines, want 50", lines)
	}
}
