//go:build integration

package cli_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
	"github.com/gatehouse-dev/gatehouse/bench/medians"
)

// BenchmarkMCPReadFile4KiB: full read_file round trips over /mcp from 8
// concurrent clients (target ≥ 2,000 calls/s on 2 cores). Each client is
// an MCP session set up by the SDK's client, whose calls are then made
// by a lean client on a kept-alive HTTP/1.1 connection: the JSON-RPC
// request POSTed on the session, the SSE reply read and its result
// checked. Client and daemon share the 2 cores,
// so the SDK client's own CPU (about 0.5 ms a call) would cap the figure
// below what the daemon serves; BenchmarkMCPReadFile4KiBSDKClient keeps
// it for comparison. Besides calls/s it reports the CPU each side spent
// per call, which is steadier than calls/s on a shared machine.
func BenchmarkMCPReadFile4KiB(b *testing.B) { benchReadFile(b, true) }

// BenchmarkMCPReadFile4KiBSDKClient is the same with every call made by
// the SDK's client.
func BenchmarkMCPReadFile4KiBSDKClient(b *testing.B) { benchReadFile(b, false) }

func benchReadFile(b *testing.B, lean bool) {
	d := clitest.Start(b)
	os.WriteFile(filepath.Join(d.Workspace, "four.txt"), []byte(strings.Repeat("abcdefg\n", 512)), 0o644)
	const clients = 8
	// One pool with room for every client's connections: http.DefaultTransport
	// keeps only two idle connections per host, so eight clients would
	// otherwise open a new TCP connection for most calls.
	rt := &http.Transport{MaxIdleConnsPerHost: 2 * clients}
	b.Cleanup(rt.CloseIdleConnections)
	sessions := make([]*mcp.ClientSession, clients)
	for i := range sessions {
		sessions[i] = d.MCPOver(b.Context(), "bench", rt)
	}
	pid := d.PID()
	var next atomic.Int64
	b.ResetTimer()
	start, self0, daemon0 := time.Now(), selfCPU(), procCPU(pid)
	var wg sync.WaitGroup
	for _, s := range sessions {
		wg.Add(1)
		call := func() error {
			r, err := s.CallTool(b.Context(), &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "four.txt"}})
			if err == nil && r.IsError {
				err = errors.New("tool error")
			}
			return err
		}
		if lean {
			call = leanCaller(d, rt, s.ID())
		}
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(b.N) {
				if err := call(); err != nil {
					b.Errorf("read_file: %v", err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "calls/s")
	b.ReportMetric(float64((procCPU(pid)-daemon0).Microseconds())/float64(b.N), "daemon-cpu-µs/call")
	b.ReportMetric(float64((selfCPU()-self0).Microseconds())/float64(b.N), "client-cpu-µs/call")
}

// leanCaller makes read_file calls on an initialized MCP session over
// one kept-alive HTTP/1.1 connection of its own: a tools/call request, its
// SSE (or JSON) reply read to the response with our id, which must be a
// result that is not an error.
func leanCaller(d *clitest.Daemon, _ http.RoundTripper, session string) func() error {
	var (
		conn net.Conn
		br   *bufio.Reader
		id   int64
	)
	head := "POST /mcp HTTP/1.1\r\nHost: " + d.Addr + "\r\nAuthorization: Bearer " + d.Token("agent") +
		"\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: " + session +
		"\r\nMcp-Protocol-Version: " + clitest.StatefulProtocol + "\r\nContent-Length: "
	req := &http.Request{Method: http.MethodPost}
	var buf []byte
	return func() error {
		if conn == nil {
			c, err := net.Dial("tcp", d.Addr)
			if err != nil {
				return err
			}
			conn, br = c, bufio.NewReaderSize(c, 64<<10)
		}
		id++
		body := `{"jsonrpc":"2.0","id":` + strconv.FormatInt(id, 10) + `,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"four.txt"}}}`
		buf = append(append(append(append(buf[:0], head...), strconv.Itoa(len(body))...), "\r\n\r\n"...), body...)
		if _, err := conn.Write(buf); err != nil {
			conn.Close()
			conn = nil
			return err
		}
		resp, err := http.ReadResponse(br, req)
		if err != nil {
			conn.Close()
			conn = nil
			return err
		}
		data, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("HTTP %s: %s", resp.Status, data)
		}
		if resp.Close {
			conn.Close()
			conn = nil
		}
		var msg struct {
			ID     int64 `json:"id"`
			Result *struct {
				IsError bool              `json:"isError"`
				Content []json.RawMessage `json:"content"`
			} `json:"result"`
			Error *json.RawMessage `json:"error"`
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
				line = bytes.TrimSpace(d)
			} else if len(line) == 0 || line[0] != '{' {
				continue
			}
			if err := json.Unmarshal(line, &msg); err != nil || msg.ID != id {
				continue // a notification, or not ours
			}
			switch {
			case msg.Error != nil:
				return fmt.Errorf("JSON-RPC error %s", *msg.Error)
			case msg.Result == nil || msg.Result.IsError || len(msg.Result.Content) == 0:
				return errors.New("read_file returned no content or an error")
			}
			return nil
		}
		return fmt.Errorf("no response to call %d", id)
	}
}

// procCPU is a process's user+system CPU time from /proc (Linux only).
func procCPU(pid int) time.Duration {
	f, ok := procStat(pid)
	if !ok || len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	const clkTck = 100 // USER_HZ on Linux
	return time.Duration(ut+stime) * time.Second / clkTck
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRunTrueAddedLatency: run_command ["true"] through MCP, policy,
// audit and the sandbox, against a bare exec of /bin/true in the same run
// (target: added p50 ≤ 10 ms).
// agentPause stands for the agent's thinking time between two calls; the
// session builds the next call's sandbox in it. Back to back, a call also
// waits for most of that build.
const agentPause = 150 * time.Millisecond

// BenchmarkRunTrueAddedLatency is run_command ["true"] through MCP,
// policy, audit, checkpoints and bwrap against a bare exec in the same
// run, with the agent pausing between calls as agents do.
func BenchmarkRunTrueAddedLatency(b *testing.B) { benchRunTrue(b, agentPause) }

// BenchmarkRunTrueBackToBack is the same with no pause between calls.
func BenchmarkRunTrueBackToBack(b *testing.B) { benchRunTrue(b, 0) }

// BenchmarkRunTrueLandlockBackToBack is BenchmarkRunTrueBackToBack with
// the Landlock backend (target: added p50 ≤ 8 ms).
func BenchmarkRunTrueLandlockBackToBack(b *testing.B) {
	benchRunTrueOn(b, clitest.StartBackend(b, "landlock"), 0)
}

func benchRunTrue(b *testing.B, pause time.Duration) { benchRunTrueOn(b, clitest.Start(b), pause) }

func benchRunTrueOn(b *testing.B, d *clitest.Daemon, pause time.Duration) {
	s := d.MCP(b.Context(), "bench")
	// A command that may run a package manager waits for the build cache
	// to link in the host's caches at start (seconds of the daemon's CPU);
	// `true` only reads and would not, so the measured calls would share
	// the machine with it.
	r, err := s.CallTool(b.Context(), &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"argv": []string{"sh", "-c", "true"}}})
	if err != nil || r.IsError {
		b.Fatalf("warm-up: %v %v", err, r)
	}
	bare := make([]time.Duration, 0, b.N)
	gated := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
		bare = append(bare, time.Since(t0))
		if pause > 0 {
			b.StopTimer()
			// Not a wait: the pause between calls is what this run measures against.
			time.Sleep(pause)
			b.StartTimer()
		}
		t0 = time.Now()
		r, err := s.CallTool(b.Context(), &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"argv": []string{"true"}}})
		if err != nil || r.IsError {
			b.Fatalf("run_command: %v %v", err, r)
		}
		gated = append(gated, time.Since(t0))
	}
	medians.Report(b, bare, gated, medians.Units{Base: "bare-p50-ms", Run: "gated-p50-ms", Added: "added-p50-ms", Ratio: "ratio"})
}
