package export

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/audit"
	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

// countingCollector is an OTLP endpoint that only counts records, so the
// benchmark measures the exporter, not a JSON decoder in the same process.
func countingCollector(b *testing.B) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	key := []byte(`"gatehouse.seq"`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		n.Add(int64(bytes.Count(body, key)))
		w.WriteHeader(http.StatusOK)
	}))
	b.Cleanup(srv.Close)
	return srv, &n
}

// BenchmarkDrainBacklog: a backlog of 100,000 events drains to a local
// OTLP endpoint; events/s is the rate (the target is >= 10,000).
func BenchmarkDrainBacklog(b *testing.B) {
	const backlog = 100_000
	for range b.N {
		b.StopTimer()
		st, sqlDB := newStore(b)
		fill(b, st, backlog)
		srv, n := countingCollector(b)
		sink, err := NewOTLP(OTLPOptions{Endpoint: srv.URL})
		if err != nil {
			b.Fatal(err)
		}
		r := New(Options{Audit: st, DB: sqlDB, Sinks: []Sink{sink}, MaxBacklog: 2 * backlog, Poll: time.Millisecond})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		b.StartTimer()
		start := time.Now()
		go func() { r.Run(ctx); close(done) }()
		waitfor.For(b, 5*time.Minute, "the backlog at the collector", func() bool { return n.Load() >= backlog })
		elapsed := time.Since(start)
		b.StopTimer()
		cancel()
		<-done
		b.ReportMetric(float64(backlog)/elapsed.Seconds(), "events/s")
	}
}

// BenchmarkCallLatencyExportOnOff: a call's durable audit write (what a
// call waits on), paced at 1,000 calls/s alternating between two stores in
// the same run, one exported and one not, so both see the same machine at
// the same moments; p50-on/p50-off is the ratio (target within ±5%).
func BenchmarkCallLatencyExportOnOff(b *testing.B) {
	on, onDB := newStore(b)
	off, _ := newStore(b)
	srv, _ := countingCollector(b)
	sink, _ := NewOTLP(OTLPOptions{Endpoint: srv.URL})
	r := New(Options{Audit: on, DB: onDB, Sinks: []Sink{sink}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	lat := [2][]time.Duration{}
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	b.ResetTimer()
	for i := range b.N {
		<-tick.C
		st := []*audit.Store{off, on}[i%2]
		t0 := time.Now()
		if _, err := st.Append(ctx, audit.Event{Session: "s_call", CallID: fmt.Sprintf("c%d", i), Kind: "tool.call", Actor: "agent:claude-code",
			Payload: []byte(`{"tool":"run_command","args":{"argv":["go","test","./..."]}}`)}); err != nil {
			b.Fatal(err)
		}
		lat[i%2] = append(lat[i%2], time.Since(t0))
	}
	b.StopTimer()
	if len(lat[0]) == 0 || len(lat[1]) == 0 {
		return
	}
	p50 := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Microseconds())
	}
	pOff, pOn := p50(lat[0]), p50(lat[1])
	b.ReportMetric(pOff, "p50-off-µs")
	b.ReportMetric(pOn, "p50-on-µs")
	if pOff > 0 {
		b.ReportMetric(pOn/pOff, "on/off")
	}
}

// BenchmarkExportCPUAt1000PerSecond: the process's CPU while 1,000
// events/s are written for 3 s, with export off and on; the difference
// is export's cost (run it with -benchtime 1x).
func BenchmarkExportCPUAt1000PerSecond(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("export=%v", on), func(b *testing.B) {
			for range b.N {
				st, sqlDB := newStore(b)
				ctx, cancel := context.WithCancel(context.Background())
				var sent *atomic.Int64
				done := make(chan struct{})
				if on {
					var srv *httptest.Server
					srv, sent = countingCollector(b)
					sink, _ := NewOTLP(OTLPOptions{Endpoint: srv.URL})
					r := New(Options{Audit: st, DB: sqlDB, Sinks: []Sink{sink}})
					go func() { r.Run(ctx); close(done) }()
				} else {
					close(done)
				}
				cpu0, start := cpuTime(), time.Now()
				t := time.NewTicker(10 * time.Millisecond)
				for i := 0; i < 300; i++ {
					<-t.C
					for j := range 10 {
						st.Queue(ctx, audit.Event{Session: "s_load", CallID: fmt.Sprintf("l%d", i*10+j), Kind: "tool.call", Actor: "agent:claude-code",
							Payload: []byte(`{"tool":"run_command","args":{"argv":["go","test","./..."]}}`)})
					}
				}
				t.Stop()
				b.ReportMetric(100*float64(cpuTime()-cpu0)/float64(time.Since(start)), "cpu-%/core")
				if sent != nil {
					b.ReportMetric(float64(sent.Load()), "exported")
				}
				cancel()
				<-done
			}
		})
	}
}

// cpuTime is the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
