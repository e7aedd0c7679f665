//go:build integration

package cli_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// testCollector is the real OpenTelemetry Collector (scripts/otelcol,
// built by scripts/deps.sh test) on loopback: an OTLP/HTTP receiver and a
// file exporter writing what it received as JSON lines.
type testCollector struct {
	t    *testing.T
	bin  string
	port int
	dir  string
	runs []string // the output file of each start
	cmd  *exec.Cmd
	done chan struct{}
}

// otelcolEnv names a collector built elsewhere than .cache/otelcol (for
// checkouts whose .cache is shared or read-only).
const otelcolEnv = "GATEHOUSE_OTELCOL"

func newTestCollector(t *testing.T) *testCollector {
	t.Helper()
	bin := filepath.Join(clitest.RepoRoot(), ".cache", "otelcol", "otelcol")
	if p := os.Getenv(otelcolEnv); p != "" {
		bin = p
	}
	if st, err := os.Stat(bin); err != nil || st.Mode()&0o111 == 0 {
		t.Fatalf("the test OpenTelemetry Collector is not built (%s: %v); run scripts/deps.sh test (or make deps-test), which builds scripts/otelcol into .cache/otelcol (or build it elsewhere and name it in %s)", bin, err, otelcolEnv)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return &testCollector{t: t, bin: bin, port: port, dir: t.TempDir()}
}

func (c *testCollector) endpoint() string { return fmt.Sprintf("http://127.0.0.1:%d", c.port) }

// start runs the collector (again), writing to a new file.
func (c *testCollector) start() {
	t := c.t
	t.Helper()
	out := filepath.Join(c.dir, fmt.Sprintf("received-%d.jsonl", len(c.runs)))
	cfg := filepath.Join(c.dir, fmt.Sprintf("config-%d.yaml", len(c.runs)))
	yaml := fmt.Sprintf(`receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:%d
exporters:
  file:
    path: %s
    format: json
    flush_interval: 100ms
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    logs:
      receivers: [otlp]
      exporters: [file]
`, c.port, out)
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	c.runs = append(c.runs, out)
	c.cmd = exec.Command(c.bin, "--config", "file:"+cfg)
	log, exited := clitest.Spawn(t, c.cmd, "the collector")
	c.done = exited
	clitest.WaitFor(t, 60*time.Second, "the collector listening", func() bool {
		select {
		case <-exited:
			t.Fatalf("the collector exited:\n%s", log.String())
		default:
		}
		conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", c.port), time.Second)
		if err == nil {
			conn.Close()
		}
		return err == nil
	})
}

func (c *testCollector) stop() {
	c.t.Helper()
	clitest.Terminate(c.cmd.Process, c.done, 20*time.Second)
}

// received is every file's text, and the seqs of the records in them in
// the order they were written (a batch sent again shows twice).
func (c *testCollector) received() (string, []int64) {
	var all strings.Builder
	var seqs []int64
	for _, f := range c.runs {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		all.Write(b)
		sc := bufio.NewScanner(strings.NewReader(string(b)))
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var req struct {
				ResourceLogs []struct {
					ScopeLogs []struct {
						LogRecords []struct {
							Attributes []struct {
								Key   string `json:"key"`
								Value struct {
									Int json.RawMessage `json:"intValue"`
								} `json:"value"`
							} `json:"attributes"`
						} `json:"logRecords"`
					} `json:"scopeLogs"`
				} `json:"resourceLogs"`
			}
			if json.Unmarshal(sc.Bytes(), &req) != nil {
				continue // a line the collector was writing when stopped
			}
			for _, rl := range req.ResourceLogs {
				for _, sl := range rl.ScopeLogs {
					for _, rec := range sl.LogRecords {
						for _, a := range rec.Attributes {
							if a.Key == "gatehouse.seq" {
								n, _ := strconv.ParseInt(strings.Trim(string(a.Value.Int), `"`), 10, 64)
								seqs = append(seqs, n)
							}
						}
					}
				}
			}
		}
	}
	return all.String(), seqs
}

// ocsfRequired are the attributes OCSF 1.x requires of each class the
// export writes (the base event's, and the class's own).
var ocsfRequired = map[int][]string{
	0:    {},
	1007: {"actor", "device", "process"},
	3002: {"user"},
	3003: {"user"},
	4001: {"dst_endpoint"},
	6002: {"app"},
}

// TestExportToRealCollector: a scripted session through the real binary
// reaches the real OpenTelemetry Collector; killed and restarted
// mid-stream (the daemon restarted too), the collector ends with every
// sequence number, first arrivals in order; no redacted value appears in
// what it wrote or in the OCSF file, whose lines carry each class's
// required fields.
func TestExportToRealCollector(t *testing.T) {
	col := newTestCollector(t)
	col.start()

	secret := "s3cr3t-value-" + strings.Repeat("z", 20)
	t.Setenv("DEPLOY_API_TOKEN", secret)
	ghToken := "ghp_" + strings.Repeat("Z9y8X7w6", 5)[:36]
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	ocsf := filepath.Join(base, "audit.ocsf.jsonl")
	clitest.WriteConfig(t, ws, "config.toml", fmt.Sprintf(`[export]
otlp_endpoint = %q
otlp_headers = { "x-team-key" = "team-collector-key" }
ocsf_file = %q
`, col.endpoint(), ocsf))
	d := clitest.StartWith(t, filepath.Join(base, "data"), ws)
	if err := os.WriteFile(filepath.Join(ws, "config.txt"), []byte("deploy="+secret+"\ngh="+ghToken+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	session := func(name string, n int, at func(i int)) {
		s := d.MCP(t.Context(), name)
		for i := range n {
			if at != nil {
				at(i)
			}
			call(t, s, "run_command", map[string]any{"argv": []string{"echo", fmt.Sprintf("step %d", i)}})
			call(t, s, "run_command", map[string]any{"argv": []string{"cat", "config.txt"}})
			call(t, s, "read_file", map[string]any{"path": "config.txt"})
		}
		s.Close()
	}
	head := func() int64 {
		evs := d.Events("order=desc&limit=1")
		if len(evs) == 0 {
			return 0
		}
		return int64(evs[0]["seq"].(float64))
	}
	haveAll := func(upTo int64) (bool, string) {
		_, seqs := col.received()
		got := map[int64]bool{}
		for _, s := range seqs {
			got[s] = true
		}
		for s := int64(1); s <= upTo; s++ {
			if !got[s] {
				return false, fmt.Sprintf("seq %d of %d missing (%d received)", s, upTo, len(got))
			}
		}
		return true, ""
	}

	session("export-1", 3, nil)
	first := head()
	clitest.WaitFor(t, 30*time.Second, "the first part at the collector", func() bool { ok, _ := haveAll(first); return ok })

	// The collector goes away mid-stream, in the middle of a session:
	// calls go on, unhindered.
	start := time.Now()
	session("export-2", 4, func(i int) {
		if i == 1 {
			col.stop()
		}
	})
	if took := time.Since(start); took > 30*time.Second {
		t.Fatalf("calls took %v with the collector down", took)
	}
	// The daemon restarts while the collector is still down; the backlog
	// waits in the database.
	d.Stop()
	d.Restart()
	session("export-3", 2, nil)
	_, body := d.Request("GET", "/api/v1/export", nil, d.Control())
	if !strings.Contains(body, `"sink":"otlp"`) || !strings.Contains(body, `"backlog"`) || strings.Contains(body, "team-collector-key") {
		t.Fatalf("GET /api/v1/export = %s", body)
	}

	col.start()
	last := head()
	clitest.WaitFor(t, 60*time.Second, "every event at the collector after its restart", func() bool { ok, _ := haveAll(last); return ok })
	if ok, why := haveAll(last); !ok {
		t.Fatal(why)
	}

	text, seqs := col.received()
	seen := map[int64]bool{}
	var prev int64
	for _, s := range seqs {
		if seen[s] {
			continue // sent again after a restart: at least once
		}
		if s < prev {
			t.Fatalf("seq %d first arrived after %d: not in sequence order", s, prev)
		}
		seen[s], prev = true, s
	}
	for _, attr := range []string{"gatehouse.hash", "gatehouse.session", "gatehouse.kind", `"gen_ai.tool.name"`, `"execute_tool"`} {
		if !strings.Contains(text, attr) {
			t.Errorf("the collector's records lack %s", attr)
		}
	}
	if strings.Contains(text, secret) || strings.Contains(text, ghToken) {
		t.Fatal("a redacted value reached the collector")
	}
	if !strings.Contains(text, "REDACTED") {
		t.Fatal("the collector got no redacted output: the session did not exercise redaction")
	}

	// The OCSF file: every event, each line with its class's required fields.
	clitest.WaitFor(t, 30*time.Second, "the OCSF file to catch up", func() bool {
		b, _ := os.ReadFile(ocsf)
		return int64(strings.Count(string(b), "\n")) >= last
	})
	b, err := os.ReadFile(ocsf)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), secret) || strings.Contains(string(b), ghToken) {
		t.Fatal("a redacted value reached the OCSF file")
	}
	classes := map[int]int{}
	ocsfSeqs := map[int64]bool{}
	for line := range strings.Lines(string(b)) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("OCSF line is not JSON: %v\n%s", err, line)
		}
		class := int(m["class_uid"].(float64))
		req, known := ocsfRequired[class]
		if !known {
			t.Fatalf("OCSF class %d is not one the README maps", class)
		}
		for _, k := range append([]string{"activity_id", "category_uid", "class_uid", "metadata", "severity_id", "time", "type_uid"}, req...) {
			if _, ok := m[k]; !ok {
				t.Fatalf("OCSF class %d line lacks required %q: %s", class, k, line)
			}
		}
		md := m["metadata"].(map[string]any)
		if _, ok := md["product"]; !ok || md["version"] == nil {
			t.Fatalf("OCSF metadata lacks product or version: %s", line)
		}
		classes[class]++
		ocsfSeqs[int64(md["sequence"].(float64))] = true
	}
	for s := int64(1); s <= last; s++ {
		if !ocsfSeqs[s] {
			t.Fatalf("the OCSF file lacks seq %d", s)
		}
	}
	for _, c := range []int{1007, 3002, 3003, 6002} {
		if classes[c] == 0 {
			t.Errorf("no OCSF line of class %d (classes seen: %v)", c, classes)
		}
	}
	t.Logf("%d events; the collector got %d records over %d runs (%d sent again); OCSF classes %v", last, len(seqs), len(col.runs), len(seqs)-len(seen), classes)
}

// TestExportEndpointWithCredentialsRefused: the daemon will not start with
// credentials in the collector's URL, and says where they go.
func TestExportEndpointWithCredentialsRefused(t *testing.T) {
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	os.MkdirAll(ws, 0o755)
	clitest.WriteConfig(t, ws, "config.toml", "[export]\notlp_endpoint = \"http://team:hunter2@collector.example.test:4318\"\n")
	d := &clitest.Daemon{Bin: clitest.Binary(t), Data: filepath.Join(base, "data"), Workspace: ws}
	out, errOut, code := clitest.Run(t.Context(), t, d.Bin, d.Env(), "serve", "--listen", "127.0.0.1:0", "--data", d.Data, "--workspace", ws)
	if code == 0 || !strings.Contains(out+errOut, "put credentials in otlp_headers") || strings.Contains(out+errOut, "hunter2") {
		t.Fatalf("serve with credentials in the endpoint: exit %d\n%s%s", code, out, errOut)
	}
}

// TestExportOCSFFileNotWritable: an OCSF file that cannot be written is a
// failing sink on GET /api/v1/export and a line in the daemon's log; calls
// go on.
func TestExportOCSFFileNotWritable(t *testing.T) {
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	blocker := filepath.Join(base, "not-a-dir")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	clitest.WriteConfig(t, ws, "config.toml", fmt.Sprintf("[export]\nocsf_file = %q\n", filepath.Join(blocker, "audit.ocsf.jsonl")))
	d := clitest.StartWith(t, filepath.Join(base, "data"), ws)
	s := d.MCP(t.Context(), "ocsf-unwritable")
	if res := call(t, s, "run_command", map[string]any{"argv": []string{"echo", "still works"}}); res.IsError {
		t.Fatalf("a call with the OCSF file unwritable: %s", clitest.Text(t, res))
	}
	clitest.WaitFor(t, 15*time.Second, "the export's status to say failing", func() bool {
		_, body := d.Request("GET", "/api/v1/export", nil, d.Control())
		return strings.Contains(body, `"state":"failing"`) && strings.Contains(body, "open the OCSF file")
	})
	// The status changes a moment before the line is logged.
	clitest.WaitFor(t, 15*time.Second, "a log line for the failing export", func() bool {
		return strings.Contains(d.Log(), "audit export failing")
	})
}
