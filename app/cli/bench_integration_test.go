//go:build integration

package cli_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// BenchmarkMCPReadFile4KiB: full read_file round trips over /mcp from 8
// concurrent clients (target ≥ 2,000 calls/s on 2 cores).
func BenchmarkMCPReadFile4KiB(b *testing.B) {
	d := clitest.Start(b)
	os.WriteFile(filepath.Join(d.Workspace, "four.txt"), []byte(strings.Repeat("abcdefg\n", 512)), 0o644)
	const clients = 8
	sessions := make([]*mcp.ClientSession, clients)
	for i := range sessions {
		sessions[i] = d.MCP(context.Background(), "bench")
	}
	var next atomic.Int64
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for _, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(b.N) {
				r, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "four.txt"}})
				if err != nil || r.IsError {
					b.Errorf("read_file: %v", err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "calls/s")
}

// BenchmarkRunTrueAddedLatency: run_command ["true"] through MCP, policy,
// audit and the sandbox, against a bare exec of /bin/true in the same run
// (target: added p50 ≤ 10 ms).
func BenchmarkRunTrueAddedLatency(b *testing.B) {
	d := clitest.Start(b)
	s := d.MCP(context.Background(), "bench")
	bare := make([]time.Duration, 0, b.N)
	gated := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
		bare = append(bare, time.Since(t0))
		t0 = time.Now()
		r, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"argv": []string{"true"}}})
		if err != nil || r.IsError {
			b.Fatalf("run_command: %v %v", err, r)
		}
		gated = append(gated, time.Since(t0))
	}
	pb, pg := median(bare), median(gated)
	b.ReportMetric(float64(pb.Microseconds())/1000, "bare-p50-ms")
	b.ReportMetric(float64(pg.Microseconds())/1000, "gated-p50-ms")
	b.ReportMetric(float64((pg-pb).Microseconds())/1000, "added-p50-ms")
	b.ReportMetric(float64(pg)/float64(pb), "ratio")
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
