package audit

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// BenchmarkAppendConcurrent: many goroutines calling Append (each waits for
// its commit), sharing transactions. Reports durable events/s.
func BenchmarkAppendConcurrent(b *testing.B) {
	s, _, _ := newTestStore(b)
	ctx := b.Context()
	payload := []byte(`{"argv":["go","test","./..."],"cwd":"/home/u/src/project","decision":"allow"}`)
	// Each Append waits for its fsync, so throughput is bounded by how many
	// appenders share one commit: 256 per core.
	b.SetParallelism(256)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		e := Event{Session: "sess-1", CallID: "call-1", Kind: "tool.call", Actor: "agent:claude-code", Payload: payload}
		for pb.Next() {
			if _, err := s.Append(ctx, e); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
}

// BenchmarkAppendAsync: one producer pipelining AppendAsync, as a daemon
// recording without waiting would. Reports durable events/s.
func BenchmarkAppendAsync(b *testing.B) {
	s, _, _ := newTestStore(b)
	ctx := b.Context()
	e := Event{Session: "sess-1", Kind: "tool.output", Actor: "agent:codex", Payload: []byte(`{"bytes":1024,"truncated":false}`)}
	pending := make(chan (<-chan Result), 4096)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ch := range pending {
			if r := <-ch; r.Err != nil {
				b.Error(r.Err)
			}
		}
	}()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		pending <- s.AppendAsync(ctx, e)
	}
	close(pending)
	<-done
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
}

// BenchmarkLiveDelivery measures append→subscriber latency, from just before
// Append to receipt on a subscriber's channel, with 8 appenders running.
func BenchmarkLiveDelivery(b *testing.B) {
	s, _, _ := newTestStore(b)
	ctx := b.Context()
	sub := s.Subscribe(1 << 16)
	defer sub.Close()

	var mu sync.Mutex
	sent := map[string]time.Time{} // CallID → send time
	lat := make([]time.Duration, 0, b.N)
	got := make(chan struct{})
	go func() {
		defer close(got)
		for e := range sub.C() {
			now := time.Now()
			mu.Lock()
			if t0, ok := sent[e.CallID]; ok {
				lat = append(lat, now.Sub(t0))
				delete(sent, e.CallID)
			}
			n := len(lat)
			mu.Unlock()
			if n == b.N {
				return
			}
		}
	}()
	b.ResetTimer()
	var wg sync.WaitGroup
	per := (b.N + 7) / 8
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w * per; i < min(b.N, (w+1)*per); i++ {
				id := fmt.Sprint(i)
				mu.Lock()
				sent[id] = time.Now()
				mu.Unlock()
				if _, err := s.Append(ctx, Event{CallID: id, Kind: "tool.call", Actor: "agent:a", Payload: []byte(`{"x":1}`)}); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	<-got
	b.StopTimer()
	if err := sub.Err(); err != nil {
		b.Fatal(err)
	}
	slices.Sort(lat)
	if len(lat) == 0 {
		return
	}
	pct := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}

// BenchmarkQuery1M: queries against a 1,000,000-event database spread over
// 1,000 sessions and 8 kinds, built once per run with the writer's own
// insert path in large transactions.
func BenchmarkQuery1M(b *testing.B) {
	const total, sessions = 1_000_000, 1000
	path := filepath.Join(b.TempDir(), "gatehouse.db")
	sqlDB := openTestDB(b, path)
	buildStart := time.Now()
	if err := bulkLoad(b.Context(), sqlDB, total, sessions); err != nil {
		b.Fatal(err)
	}
	b.Logf("built %d events in %s", total, time.Since(buildStart).Round(time.Millisecond))
	s, err := Open(b.Context(), sqlDB, nil, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := b.Context()
	rng := rand.New(rand.NewPCG(1, 2))
	run := func(name string, f func() (int, error), want int) {
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				n, err := f()
				if err != nil || n != want {
					b.Fatalf("got %d events, %v; want %d", n, err, want)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/query")
		})
	}
	run("last100-of-session", func() (int, error) {
		evs, err := s.Last(ctx, 100, Filter{Session: fmt.Sprintf("session-%04d", rng.IntN(sessions))})
		return len(evs), err
	}, 100)
	run("last100-of-kind", func() (int, error) {
		evs, err := s.Last(ctx, 100, Filter{Kind: "policy.decision"})
		return len(evs), err
	}, 100)
	run("page100-after-seq", func() (int, error) {
		evs, err := s.Query(ctx, Query{After: rng.Int64N(total - 1000), Limit: 100})
		return len(evs), err
	}, 100)
	b.Run("verify-1M", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			rep, err := s.Verify(ctx)
			if err != nil || !rep.OK || rep.Checked != total {
				b.Fatalf("Verify = %+v, %v", rep, err)
			}
		}
		b.ReportMetric(float64(total)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	})
}
