package snapshot

import (
	"context"
	"os"
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
	s.saveWG.Wait()
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
