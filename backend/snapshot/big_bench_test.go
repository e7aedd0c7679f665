package snapshot

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"testing"
	"time"
)

// BenchmarkCheckpointNoChangeWS profiles no-change checkpoints of a real
// workspace (e.g. one kept by `go run ./bench/snapshot -keep`) named by
// GATEHOUSE_BENCH_WS.
func BenchmarkCheckpointNoChangeWS(b *testing.B) {
	ws := os.Getenv("GATEHOUSE_BENCH_WS")
	if ws == "" {
		b.Skip("GATEHOUSE_BENCH_WS not set")
	}
	s, err := Open(b.TempDir(), Options{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	req := Request{Session: "b", CallID: "c", Phase: Pre, Roots: []string{ws}}
	if _, err := s.Checkpoint(ctx, req); err != nil {
		b.Fatal(err)
	}
	s.flushCaches()
	if p := os.Getenv("GATEHOUSE_PROF"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			b.Fatal(err)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	b.ResetTimer()
	var ds []time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := s.Checkpoint(ctx, req); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(t0))
	}
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2])/1e6, "median-ms")
}

// BenchmarkRollback100WS times plan+apply of a rollback of 100 rewritten
// files of the workspace named by GATEHOUSE_BENCH_WS (which it edits).
func BenchmarkRollback100WS(b *testing.B) {
	ws := os.Getenv("GATEHOUSE_BENCH_WS")
	if ws == "" {
		b.Skip("GATEHOUSE_BENCH_WS not set")
	}
	var files []string
	filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	s, err := Open(b.TempDir(), Options{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	req := Request{Session: "b", CallID: "c", Phase: Pre, Roots: []string{ws}}
	if _, err := s.Checkpoint(ctx, req); err != nil {
		b.Fatal(err)
	}
	s.flushCaches()
	r := rand.New(rand.NewPCG(1, 2))
	var ds, plans []time.Duration
	var prof bool
	for b.Loop() {
		pre, err := s.Checkpoint(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		for range 100 {
			p := files[r.IntN(len(files))]
			old, _ := os.ReadFile(p)
			os.WriteFile(p, append([]byte(fmt.Sprintf("// edit %d\n", r.Uint64())), old...), 0o644)
		}
		post := req
		post.Phase = Post
		if _, err := s.Checkpoint(ctx, post); err != nil {
			b.Fatal(err)
		}
		s.flushCaches()
		if p := os.Getenv("GATEHOUSE_PROF"); p != "" && !prof {
			prof = true
			f, _ := os.Create(p)
			pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
		t0 := time.Now()
		p, err := s.Plan(ctx, RollbackRequest{Session: "b", To: pre.ID})
		if err != nil {
			b.Fatal(err)
		}
		plans = append(plans, time.Since(t0))
		if _, err := s.Apply(ctx, p); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(t0))
	}
	slices.Sort(ds)
	slices.Sort(plans)
	b.ReportMetric(float64(ds[len(ds)/2])/1e6, "median-ms")
	b.ReportMetric(float64(plans[len(plans)/2])/1e6, "plan-ms")
}
