//go:build integration

package export

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/fulldisk"
	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

// An OCSF file on a disk that is full: a failing status that says so, no
// crash, and every event in the file once there is room (a line cut short
// by the full disk is skipped by readers; each line names its seq).
func TestOCSFFileOnAFullDisk(t *testing.T) {
	st, sqlDB := newStore(t)
	fill(t, st, 200)
	dir := fulldisk.New(t, "size=1m,mode=0700")
	filler := filepath.Join(dir, "filler")
	fulldisk.Fill(filler, 2)
	path := filepath.Join(dir, "audit.ocsf.jsonl")
	r := New(fast(Options{Audit: st, DB: sqlDB, Sinks: []Sink{NewOCSFFile(path, "test")}}))
	run(t, r)
	waitFailingOnAFullDisk(t, r)
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	waitfor.For(t, 10*time.Second, "every event in the file", func() bool {
		s, err := r.Status(t.Context())
		return err == nil && s[0].SentSeq == 200
	})
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[int64]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var m struct {
			Metadata struct {
				Sequence int64 `json:"sequence"`
			} `json:"metadata"`
		}
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			seen[m.Metadata.Sequence] = true
		}
	}
	for s := int64(1); s <= 200; s++ {
		if !seen[s] {
			t.Fatalf("seq %d is not in the OCSF file", s)
		}
	}
}

// The database itself on a full disk: the cursor cannot be saved, which
// the status says, without a crash; once there is room it is saved.
func TestCursorOnAFullDisk(t *testing.T) {
	dir := fulldisk.New(t, "size=8m,mode=0700")
	st, sqlDB := newStoreIn(t, dir)
	fill(t, st, 300)
	filler := filepath.Join(dir, "filler")
	fulldisk.Fill(filler, 16)
	col := newCollector(t)
	sink, _ := NewOTLP(OTLPOptions{Endpoint: col.URL})
	o := fast(Options{Audit: st, DB: sqlDB, Sinks: []Sink{sink}})
	o.SaveEvery = time.Millisecond
	r := New(o)
	run(t, r)
	waitFailingOnAFullDisk(t, r)
	if got := col.distinct(); len(got) != 300 {
		t.Fatalf("the collector got %d events; delivery goes on while the cursor cannot be saved", len(got))
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	waitfor.For(t, 10*time.Second, "the cursor saved", func() bool {
		c, err := loadCursor(t.Context(), sqlDB, SinkOTLP)
		return err == nil && c.Sent == 300
	})
}

// waitFailingOnAFullDisk waits for r's one sink to fail, saying the disk is
// full.
func waitFailingOnAFullDisk(t *testing.T, r *Runner) {
	t.Helper()
	waitfor.ForState(t, 10*time.Second, "a failing status naming the full disk", func() (bool, string) {
		s, err := r.Status(t.Context())
		if err != nil {
			return false, err.Error()
		}
		return s[0].State == StateFailing && strings.Contains(strings.ToLower(s[0].LastError), "full"), s[0].LastError
	})
}
