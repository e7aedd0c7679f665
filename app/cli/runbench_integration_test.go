//go:build integration

package cli_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/agenttest"
	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
	"github.com/gatehouse-dev/gatehouse/bench/medians"
)

// Whole-agent mode's costs: `gatehouse run` against the same command
// bare, alternated in one loop, medians reported.

// runEnv is the CLI's environment for d without the test's debug logging,
// as a person runs it, with HOME replaced when home is set.
func runEnv(d *clitest.Daemon, home string) []string {
	var env []string
	for _, e := range d.Env() {
		if strings.HasPrefix(e, "GATEHOUSE_DEBUG=") || home != "" && strings.HasPrefix(e, "HOME=") {
			continue
		}
		env = append(env, e)
	}
	if home != "" {
		env = append(env, "HOME="+home)
	}
	return env
}

// runPrefix is `gatehouse --data D run --workspace W`, then args.
func runPrefix(d *clitest.Daemon, args ...string) []string {
	return append([]string{d.Bin, "--data", d.Data, "run", "--workspace", d.Workspace}, args...)
}

// output runs argv with env and returns its stdout, failing b on error.
func output(b *testing.B, env []string, argv ...string) []byte {
	b.Helper()
	cmd := exec.CommandContext(b.Context(), argv[0], argv[1:]...)
	cmd.Env = env
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("%v: %v\n%s%s", argv, err, out, errb.Bytes())
	}
	return out
}

// BenchmarkRunTrue: `gatehouse run -- true` over bare `true`, process
// starts included (target: ≤ +15 ms p50).
func BenchmarkRunTrue(b *testing.B) { benchConfinedTrue(b, clitest.Start(b)) }

// BenchmarkRunTrueLandlock: the same, the run confined with Landlock.
func BenchmarkRunTrueLandlock(b *testing.B) {
	benchConfinedTrue(b, clitest.StartBackend(b, "landlock"))
}

func benchConfinedTrue(b *testing.B, d *clitest.Daemon) {
	env := runEnv(d, "")
	run := runPrefix(d, "--", "true")
	output(b, env, run...) // the first run's one-time work
	benchPairUnits(b, func() { output(b, env, "true") }, func() { output(b, env, run...) },
		medians.Units{Base: "bare-p50-ms", Run: "run-p50-ms", Added: "added-p50-ms", Ratio: "ratio"})
}

// benchPairUnits times base and run alternately and reports their medians.
func benchPairUnits(b *testing.B, base, run func(), u medians.Units) {
	var tb, tr []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		base()
		tb = append(tb, time.Since(t0))
		t0 = time.Now()
		run()
		tr = append(tr, time.Since(t0))
	}
	medians.Report(b, tb, tr, u)
}

// streamHost is the made-up name the proxy maps to the stream server.
const streamHost = "stream.example.test"

// streamDaemon is a daemon whose proxy maps streamHost to a local HTTPS
// server streaming server-sent events, and whose policy lets commands
// reach it without a card; and the server's URL by that name.
func streamDaemon(b *testing.B) (*clitest.Daemon, string) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(serveStream))
	srv.EnableHTTP2 = false
	srv.StartTLS()
	b.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	base := b.TempDir()
	ws := filepath.Join(base, "ws")
	clitest.WriteConfig(b, ws, "config.toml", fmt.Sprintf("[network]\ntest_only_hosts = { %q = \"127.0.0.1\" }\n", streamHost))
	clitest.WriteConfig(b, ws, "policy.toml", fmt.Sprintf(`[[rule]]
action = "allow"
tool = "network"
domains = [%q]
ports = [%s]
`, streamHost, u.Port()))
	return clitest.StartWith(b, filepath.Join(base, "data"), ws), "https://" + streamHost + ":" + u.Port()
}

// serveStream answers /events?n=N&size=S with N events of S bytes each,
// each flushed as it is written, the first at once: a model's streamed
// response.
func serveStream(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.URL.Query().Get("n"))
	size, _ := strconv.Atoi(r.URL.Query().Get("size"))
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	event := []byte("data: " + strings.Repeat("x", max(size-8, 0)) + "\n\n")
	f := w.(http.Flusher)
	for range n {
		if _, err := w.Write(event); err != nil {
			return
		}
		f.Flush()
	}
}

// curlTimes are curl's figures for each connection in out, one line each
// (see twoCurls): the time to the first byte of the response and the
// download speed in MiB/s.
func curlTimes(b *testing.B, out []byte) (ttfb []time.Duration, mibps []float64) {
	b.Helper()
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) != 3 || f[2] != "200" {
			b.Fatalf("curl wrote %q", out)
		}
		s, err1 := strconv.ParseFloat(f[0], 64)
		bps, err2 := strconv.ParseFloat(f[1], 64)
		if err1 != nil || err2 != nil {
			b.Fatalf("curl wrote %q", out)
		}
		ttfb = append(ttfb, time.Duration(s*float64(time.Second)))
		mibps = append(mibps, bps/(1<<20))
	}
	if len(ttfb) != 2 {
		b.Fatalf("curl wrote %q", out)
	}
	return ttfb, mibps
}

// twoCurls fetches $1 twice, each curl a new connection, printing for
// each the time to first byte, the speed and the status on a line: in a
// run, the first connection is the run's first to the domain (the
// proxy's decision is made then, once per run), the second is as an
// agent's later requests find it. The stream server's certificate is
// trusted as it is (a local test server); curl's own args come after $1.
const twoCurls = `for i in 1 2; do curl -sk -o /dev/null -w '%{time_starttransfer} %{speed_download} %{http_code}\n' "$@" || exit 1; done`

// benchStream fetches path from the stream server directly from the host
// and with curl inside `gatehouse run` (through the run's proxy),
// alternately, and hands curl's figures to report: per iteration, the
// first connection's and the second's.
func benchStream(b *testing.B, path string, report func(direct, run [][2]float64)) {
	d, base := streamDaemon(b)
	env := runEnv(d, "")
	u, _ := url.Parse(base)
	direct := []string{"sh", "-c", twoCurls, "sh", base + path, "--noproxy", "*", "--resolve", streamHost + ":" + u.Port() + ":127.0.0.1"}
	confined := runPrefix(d, "--", "sh", "-c", twoCurls, "sh", base+path)
	output(b, env, confined...) // the first run's one-time work
	var dr, rr [][2]float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t, s := curlTimes(b, output(b, env, direct...))
		dr = append(dr, [2]float64{medians.Ms(t[0]), s[0]}, [2]float64{medians.Ms(t[1]), s[1]})
		t, s = curlTimes(b, output(b, env, confined...))
		rr = append(rr, [2]float64{medians.Ms(t[0]), s[0]}, [2]float64{medians.Ms(t[1]), s[1]})
	}
	report(dr, rr)
}

// every is every other row of rows from the first, or the second: the
// run's first connections (0) or its later ones (1).
func every(rows [][2]float64, from int) [][2]float64 {
	var out [][2]float64
	for i := from; i < len(rows); i += 2 {
		out = append(out, rows[i])
	}
	return out
}

// median is the median of column i of rows (the upper middle).
func median(rows [][2]float64, i int) float64 {
	v := make([]float64, len(rows))
	for j, r := range rows {
		v[j] = r[i]
	}
	slices.Sort(v)
	return v[len(v)/2]
}

// BenchmarkRunStreamTTFB: a streamed response (20 small events) through
// the run's proxy vs directly, time to its first byte as curl measures it,
// connection and TLS included (target: ≤ +2 ms p50): a run's later
// connections (the agent's requests after its first), and apart its first
// connection to the domain, which waits for the proxy's decision.
func BenchmarkRunStreamTTFB(b *testing.B) {
	benchStream(b, "/events?n=20&size=200", func(direct, run [][2]float64) {
		dt, rt := median(direct, 0), median(every(run, 1), 0)
		b.ReportMetric(dt, "direct-ttfb-p50-ms")
		b.ReportMetric(rt, "run-ttfb-p50-ms")
		b.ReportMetric(rt-dt, "added-ttfb-p50-ms")
		b.ReportMetric(median(every(run, 0), 0)-dt, "added-first-ttfb-p50-ms")
	})
}

// BenchmarkRunStreamThroughput: 64 MiB streamed as 32 KiB events through
// the run's proxy vs directly (target: ≥ 0.95× direct), every connection
// counted.
func BenchmarkRunStreamThroughput(b *testing.B) {
	benchStream(b, "/events?n=2048&size=32768", func(direct, run [][2]float64) {
		ds, rs := median(direct, 1), median(run, 1)
		b.ReportMetric(ds, "direct-MiB/s")
		b.ReportMetric(rs, "run-MiB/s")
		b.ReportMetric(rs/ds, "ratio")
	})
}

// BenchmarkClaudeVersion: the pinned Claude Code's `claude --version`
// under `gatehouse run --profile claude` vs bare (target: ≤ 1.2×), both
// with a scratch home.
func BenchmarkClaudeVersion(b *testing.B) {
	claude, err := agenttest.Find("claude")
	if err != nil {
		b.Fatal(err)
	}
	d := clitest.Start(b)
	home := b.TempDir()
	env := runEnv(d, home)
	run := runPrefix(d, "--profile", "claude", "--", claude, "--version")
	if out := output(b, env, run...); !bytes.Contains(out, []byte("Claude Code")) {
		b.Fatalf("claude --version under gatehouse run: %q", out)
	}
	benchPairUnits(b, func() { output(b, env, claude, "--version") }, func() { output(b, env, run...) },
		medians.Units{Base: "bare-p50-ms", Run: "run-p50-ms", Added: "added-p50-ms", Ratio: "ratio"})
	os.RemoveAll(home)
}
