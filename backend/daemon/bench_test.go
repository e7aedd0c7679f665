package daemon

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/backend/datadir"
	"github.com/gatehouse-dev/gatehouse/backend/httpgate"
	"github.com/gatehouse-dev/gatehouse/sandbox"
)

// benchDaemon runs a daemon in this process. Its goroutines carry the pprof
// label side=server, so a CPU profile of a benchmark can be split into the
// daemon's share (-tagfocus side=server) and the client's.
func benchDaemon(b *testing.B, tune func(*Options)) (d *Daemon, agentToken string) {
	b.Helper()
	base := b.TempDir()
	data, ws := filepath.Join(base, "data"), filepath.Join(base, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "four.txt"), []byte(strings.Repeat("abcdefg\n", 512)), 0o644); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(b.Context())
	ready := make(chan *Daemon, 1)
	done := make(chan error, 1)
	opts := Options{
		Listen: "127.0.0.1:0", DataDir: data, Workspaces: []string{ws},
		PolicyPath: filepath.Join(base, "policy.toml"), Logger: slog.New(slog.DiscardHandler),
		SnapshotsDisabled: true, Ready: func(d *Daemon) { ready <- d },
	}
	if tune != nil {
		tune(&opts)
	}
	go pprof.Do(ctx, pprof.Labels("side", "server"), func(ctx context.Context) {
		done <- Run(ctx, opts)
	})
	b.Cleanup(func() {
		cancel()
		<-done
	})
	select {
	case d = <-ready:
	case err := <-done:
		b.Fatalf("daemon: %v", err)
	}
	tok, err := os.ReadFile(filepath.Join(data, datadir.AgentToken))
	if err != nil {
		b.Fatal(err)
	}
	return d, strings.TrimSpace(string(tok))
}

// BenchmarkMCPReadFileInProcess is BenchmarkMCPReadFile4KiB (app/cli) with
// the daemon in the test process, for profiling:
//
//	go test -run '^$' -bench MCPReadFileInProcess -benchtime 5000x -cpuprofile cpu.out ./backend/daemon/
//	go tool pprof -tagfocus side=server -top cpu.out
func BenchmarkMCPReadFileInProcess(b *testing.B) {
	d, tok := benchDaemon(b, nil)
	const clients = 8
	rt := &http.Transport{MaxIdleConnsPerHost: 2 * clients}
	b.Cleanup(rt.CloseIdleConnections)
	sessions := make([]*mcp.ClientSession, clients)
	for i := range sessions {
		sessions[i] = benchClient(b, d, tok, rt)
	}
	var next atomic.Int64
	b.ResetTimer()
	start, cpu0 := time.Now(), processCPU()
	var wg sync.WaitGroup
	for _, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(b.N) {
				r, err := s.CallTool(b.Context(), &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "four.txt"}})
				if err != nil || r.IsError {
					b.Errorf("read_file: %v %v", err, r)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "calls/s")
	// CPU per call is steadier than calls/s on a shared machine.
	b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(b.N), "cpu-µs/call")
}

// processCPU is this process's user+system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func benchClient(b *testing.B, d *Daemon, tok string, rt http.RoundTripper) *mcp.ClientSession {
	b.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1.0"}, nil)
	s, err := c.Connect(b.Context(), &mcp.StreamableClientTransport{
		Endpoint:   "http://" + d.Addr().String() + "/mcp",
		HTTPClient: &http.Client{Transport: httpgate.BearerTransport(tok, rt)},
		MaxRetries: -1,
	}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// instantSandbox "runs" every command in no time, so a benchmark through it
// measures what Gatehouse adds around the sandbox: MCP, policy, audit and
// checkpoints.
type instantSandbox struct{}

func (instantSandbox) Name() string { return "instant" }
func (instantSandbox) Open(context.Context, sandbox.SessionSpec) (sandbox.Session, error) {
	return instantSandbox{}, nil
}
func (instantSandbox) Run(ctx context.Context, spec sandbox.Spec) (sandbox.Result, error) {
	return sandbox.Result{Backend: "instant"}, nil
}
func (instantSandbox) Close(context.Context) error { return nil }

// BenchmarkRunTrueOverhead: one client calling run_command ["true"] in
// turn, with checkpoints on and a sandbox that takes no time; the p50 is
// Gatehouse's own overhead on that path (BenchmarkRunTrueAddedLatency in
// app/cli adds the real sandbox).
func BenchmarkRunTrueOverhead(b *testing.B) {
	d, tok := benchDaemon(b, func(o *Options) {
		o.Sandbox = instantSandbox{}
		o.SnapshotsDisabled = false
	})
	s := benchClient(b, d, tok, &http.Transport{})
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	cpu0 := processCPU()
	for range b.N {
		t0 := time.Now()
		r, err := s.CallTool(b.Context(), &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"argv": []string{"true"}}})
		if err != nil || r.IsError {
			b.Fatalf("run_command: %v %v", err, r)
		}
		lat = append(lat, time.Since(t0))
	}
	b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(b.N), "cpu-µs/call")
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
}
