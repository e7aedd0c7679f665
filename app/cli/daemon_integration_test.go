//go:build integration

package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

// TestServeGatesOverRealTCP drives the real daemon through net/http, so
// Host parsing, body limits and headers are the ones a browser meets.
func TestServeGatesOverRealTCP(t *testing.T) {
	d := clitest.Start(t)
	agent, control := d.Token("agent"), d.Token("control")
	port := d.Addr[strings.LastIndex(d.Addr, ":")+1:]
	ctrl := map[string]string{"Authorization": "Bearer " + control}
	with := func(m map[string]string, kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			out[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	tests := []struct {
		name   string
		method string
		path   string
		body   string
		hdr    map[string]string
		want   int
		inBody string
	}{
		{"healthz", "GET", "/healthz", "", nil, 200, "ok"},
		{"evil host", "GET", "/api/v1/sessions", "", with(ctrl, "Host", "evil.example:"+port), 403, ""},
		{"rebinding host", "GET", "/api/v1/sessions", "", with(ctrl, "Host", "127.0.0.1.nip.io:"+port), 403, ""},
		{"evil origin GET", "GET", "/api/v1/sessions", "", with(ctrl, "Origin", "https://evil.example"), 403, ""},
		{"evil origin POST", "POST", "/api/v1/kill", "{}", with(ctrl, "Origin", "https://evil.example", "Content-Type", "application/json"), 403, ""},
		{"absent origin with token", "GET", "/api/v1/sessions", "", ctrl, 200, `"sessions"`},
		{"own origin", "GET", "/api/v1/sessions", "", with(ctrl, "Origin", "http://127.0.0.1:"+port), 200, ""},
		{"agent token on api", "GET", "/api/v1/sessions", "", map[string]string{"Authorization": "Bearer " + agent}, 401, ""},
		{"agent token on kill", "POST", "/api/v1/kill", "{}", map[string]string{"Authorization": "Bearer " + agent, "Content-Type": "application/json"}, 401, ""},
		{"control token on mcp", "POST", "/mcp", "{}", with(ctrl, "Content-Type", "application/json"), 401, ""},
		{"no token", "GET", "/api/v1/events", "", nil, 401, ""},
		{"token in query", "GET", "/api/v1/events?access_token=" + control, "", nil, 401, ""},
		{"proxy headers", "GET", "/api/v1/sessions", "", with(ctrl, "Host", "evil.example:"+port, "X-Forwarded-Host", "127.0.0.1:"+port, "Forwarded", "host=127.0.0.1:"+port), 403, ""},
		{"unknown route", "GET", "/api/v1/nope", "", ctrl, 404, "no route"},
		{"malformed json", "POST", "/api/v1/pause", "{not json", with(ctrl, "Content-Type", "application/json"), 400, "malformed JSON"},
		{"unknown field", "POST", "/api/v1/pause", `{"reasn":"x"}`, with(ctrl, "Content-Type", "application/json"), 400, "unknown field"},
		{"wrong content type", "POST", "/api/v1/pause", `{"reason":"x"}`, with(ctrl, "Content-Type", "text/plain"), 415, "application/json"},
		{"bad limit", "GET", "/api/v1/events?limit=-3", "", ctrl, 400, "limit"},
		{"unknown session", "GET", "/api/v1/sessions/s_nope", "", ctrl, 404, "no such session"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body *strings.Reader
			if tt.body != "" {
				body = strings.NewReader(tt.body)
			} else {
				body = strings.NewReader("")
			}
			resp, got := d.Request(tt.method, tt.path, body, tt.hdr)
			if resp.StatusCode != tt.want {
				t.Fatalf("status %d, want %d; body %s", resp.StatusCode, tt.want, got)
			}
			if tt.inBody != "" && !strings.Contains(got, tt.inBody) {
				t.Fatalf("body %q does not contain %q", got, tt.inBody)
			}
			if tt.path == "/healthz" && got != "ok" {
				t.Fatalf("healthz body %q, want exactly ok", got)
			}
			for k := range resp.Header {
				if strings.HasPrefix(strings.ToLower(k), "access-control") {
					t.Fatalf("CORS header %s", k)
				}
			}
			if resp.Header.Get("X-Frame-Options") != "DENY" || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Fatalf("security headers missing: %v", resp.Header)
			}
		})
	}
	t.Run("oversized body", func(t *testing.T) {
		big := bytes.Repeat([]byte("a"), 11<<20)
		resp, _ := d.Request("POST", "/api/v1/pause", bytes.NewReader(big), with(ctrl, "Content-Type", "application/json"))
		if resp.StatusCode != 413 {
			t.Fatalf("status %d, want 413", resp.StatusCode)
		}
	})
	// The daemon is still healthy after all of that, and never logged a token.
	resp, _ := d.Request("GET", "/healthz", nil, nil)
	if resp.StatusCode != 200 {
		t.Fatal("daemon unhealthy after bad input")
	}
	if log := d.Log(); strings.Contains(log, control) || strings.Contains(log, agent) {
		t.Fatal("a token appeared in the daemon log")
	}
}

func TestServeRefusesNonLoopbackWithoutPublic(t *testing.T) {
	bin := clitest.Binary(t)
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	os.Mkdir(ws, 0o755)
	data := filepath.Join(dir, "d")
	_, stderr, code := clitest.Run(t.Context(), t, bin, append(os.Environ(), "XDG_CONFIG_HOME="+dir), "serve", "--listen", "0.0.0.0:0", "--data", data, "--workspace", ws)
	if code == 0 || !strings.Contains(stderr, "--public") {
		t.Fatalf("exit %d, stderr %q; want a refusal naming --public", code, stderr)
	}
	// The check runs before anything is created.
	if _, err := os.Stat(data); !os.IsNotExist(err) {
		t.Fatalf("a refused start created the data directory %s (%v)", data, err)
	}
}

func TestServeDataDirAndCleanShutdown(t *testing.T) {
	d := clitest.Start(t)
	st, err := os.Stat(d.Data)
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("data dir mode %v, %v", st.Mode().Perm(), err)
	}
	for _, f := range []string{"agent.token", "control.token", "control.sock", "gatehouse.db"} {
		st, err := os.Stat(filepath.Join(d.Data, f))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Fatalf("%s mode %v, want 0600", f, st.Mode().Perm())
		}
	}
	// Tokens are stored hashed, never in plaintext.
	out, err := exec.Command("sqlite3", filepath.Join(d.Data, "gatehouse.db"), "SELECT hash FROM tokens").CombinedOutput()
	if err != nil {
		t.Fatalf("sqlite3: %v %s", err, out)
	}
	if strings.Contains(string(out), d.Token("agent")) || strings.Contains(string(out), d.Token("control")) {
		t.Fatal("plaintext token in the database")
	}
	if len(strings.Fields(string(out))) != 2 {
		t.Fatalf("want 2 token hashes, got %q", out)
	}
	// A second daemon on the same data dir is refused with a clear message.
	_, stderr, code := clitest.Run(t.Context(), t, d.Bin, d.Env(), "serve", "--listen", "127.0.0.1:0", "--data", d.Data, "--workspace", d.Workspace)
	if code == 0 || !strings.Contains(stderr, "already running") {
		t.Fatalf("second daemon: exit %d, %q", code, stderr)
	}
	ps := d.Signal(syscall.SIGTERM, 15*time.Second)
	if !ps.Success() {
		t.Fatalf("exit after SIGTERM: %v\n%s", ps, d.Log())
	}
	for _, f := range []string{"control.sock", "addr"} {
		if _, err := os.Stat(filepath.Join(d.Data, f)); !os.IsNotExist(err) {
			t.Fatalf("%s left behind after clean shutdown", f)
		}
	}
	// The daemon is down: the past is read from the data dir, saying so;
	// following needs the daemon, and the error says how to start it.
	stdout, stderr, code := d.CLI(t.Context(), "log", "--json", "-n", "1")
	if code != 0 || !strings.Contains(stdout, `"system.stop"`) || !strings.Contains(stderr, "not running") {
		t.Fatalf("log with the daemon stopped: exit %d, out %q, err %q", code, stdout, stderr)
	}
	if n := strings.Count(strings.TrimSpace(stdout), "\n") + 1; n != 1 {
		t.Fatalf("log -n 1 printed %d events:\n%s", n, stdout)
	}
	if out, _, _ := d.CLI(t.Context(), "log", "--json", "--kind", "system.start"); strings.Contains(out, `"system.stop"`) || !strings.Contains(out, `"system.start"`) {
		t.Fatalf("log --kind with the daemon stopped: %s", out)
	}
	if _, stderr, code := d.CLI(t.Context(), "log", "-f"); code == 0 || !strings.Contains(stderr, "gatehouse serve") {
		t.Fatalf("log -f without daemon: exit %d, %q", code, stderr)
	}
	stdout, stderr, code = d.CLI(t.Context(), "audit", "verify")
	if code != 0 || !strings.Contains(stdout, "ok") {
		t.Fatalf("audit verify after stop: %d %s %s", code, stdout, stderr)
	}
	export, _, code := d.CLI(t.Context(), "audit", "export")
	if code != 0 || !strings.Contains(export, `"system.stop"`) || !strings.Contains(export, `"system.start"`) {
		t.Fatalf("export lacks start/stop events: %s", export)
	}
}

func TestKillPauseResumeCLI(t *testing.T) {
	d := clitest.Start(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"pause"}, "Paused"},
		{[]string{"resume"}, "Resumed"},
		{[]string{"kill", "--reason", "test"}, "Stopped 0 sessions"},
		{[]string{"resume"}, "Resumed"},
		{[]string{"sessions"}, "No sessions yet. Wire an agent in with `gatehouse install claude|codex|gemini|cursor`"},
		{[]string{"sessions", "--status", "ended"}, "No sessions with status ended."},
	} {
		out, errOut, code := d.CLI(t.Context(), c.args...)
		if code != 0 || !strings.Contains(out, c.want) {
			t.Fatalf("%v: exit %d, out %q, err %q", c.args, code, out, errOut)
		}
	}
	out, _, _ := d.CLI(t.Context(), "log", "--json", "--kind", "system.")
	for _, k := range []string{"system.pause", "system.resume", "system.kill"} {
		if !strings.Contains(out, `"`+k+`"`) {
			t.Fatalf("log lacks %s:\n%s", k, out)
		}
	}
	if !strings.Contains(out, "test via cli") {
		t.Fatalf("kill reason not audited:\n%s", out)
	}
}

func TestLogFollowStreamsLive(t *testing.T) {
	d := clitest.Start(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, d.Bin, "--data", d.Data, "log", "-f", "--json")
	cmd.Env = d.Env()
	var out clitest.LockedBuffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Signal(syscall.SIGINT); cmd.Wait() }()
	// Once the history (the daemon's start) is out, log -f follows from
	// after it: the pause can only come through the live stream.
	clitest.WaitFor(t, 30*time.Second, "log -f to print the history", func() bool { return strings.Contains(out.String(), "system.start") })
	if _, _, code := d.CLI(t.Context(), "pause"); code != 0 {
		t.Fatal("pause failed")
	}
	waitfor.ForState(t, 30*time.Second, "log -f to show the pause", func() (bool, string) {
		return strings.Contains(out.String(), "system.pause"), fmt.Sprintf("%q", out.String())
	})
}

func TestLongPollFallback(t *testing.T) {
	d := clitest.Start(t)
	ctrl := map[string]string{"Authorization": "Bearer " + d.Token("control")}
	_, body := d.Request("GET", "/api/v1/events?order=desc&limit=1", nil, ctrl)
	var page struct {
		Events []struct {
			Seq int64 `json:"seq"`
		} `json:"events"`
	}
	if err := json.Unmarshal([]byte(body), &page); err != nil || len(page.Events) != 1 {
		t.Fatalf("events page: %v %s", err, body)
	}
	after := page.Events[0].Seq
	done := make(chan string, 1)
	go func() {
		_, b := d.Request("GET", "/api/v1/events?wait=20&after="+strconv.FormatInt(after, 10), nil, ctrl)
		done <- b
	}()
	// The pause must answer a waiting request, not a fresh one.
	parked := `msg="events long-poll waiting" after=` + strconv.FormatInt(after, 10) + " "
	waitfor.For(t, 30*time.Second, "the daemon to park the long-poll", func() bool { return strings.Contains(d.Log(), parked) })
	d.CLI(t.Context(), "pause")
	select {
	case b := <-done:
		if !strings.Contains(b, "system.pause") {
			t.Fatalf("long-poll returned %s", b)
		}
	case <-time.After(25 * time.Second):
		t.Fatal("long-poll did not return after a new event")
	}
}

// TestAuditTamperDetected changes one byte of one row with the sqlite3 CLI;
// audit verify must fail and name that row.
func TestAuditTamperDetected(t *testing.T) {
	d := clitest.Start(t)
	for i := 0; i < 3; i++ {
		d.CLI(t.Context(), "pause")
		d.CLI(t.Context(), "resume")
	}
	d.Signal(syscall.SIGTERM, 15*time.Second)
	dbPath := filepath.Join(d.Data, "gatehouse.db")
	sq := func(q string) string {
		out, err := exec.Command("sqlite3", dbPath, q).CombinedOutput()
		if err != nil {
			t.Fatalf("sqlite3 %q: %v %s", q, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if out, _, code := d.CLI(t.Context(), "audit", "verify"); code != 0 {
		t.Fatalf("verify before tamper failed: %s", out)
	}
	// Flip one byte inside row 4's payload: "was_paused" -> "was_pausec".
	target := sq("SELECT seq FROM audit_events WHERE kind='system.resume' ORDER BY seq LIMIT 1")
	// The triggers stop accidents; an attacker with the file drops them.
	sq("DROP TRIGGER audit_events_no_update; UPDATE audit_events SET payload = replace(payload, 'was_paused', 'was_pausec') WHERE seq=" + target)
	out, _, code := d.CLI(t.Context(), "audit", "verify")
	if code == 0 || !strings.Contains(out, "seq "+target) {
		t.Fatalf("verify after tamper: exit %d, %q; want failure naming seq %s", code, out, target)
	}
}

func TestAuditDeletionDetected(t *testing.T) {
	d := clitest.Start(t)
	d.CLI(t.Context(), "pause")
	d.CLI(t.Context(), "resume")
	d.Signal(syscall.SIGTERM, 15*time.Second)
	if out, err := exec.Command("sqlite3", filepath.Join(d.Data, "gatehouse.db"), "DROP TRIGGER audit_events_no_delete; DELETE FROM audit_events WHERE seq=2").CombinedOutput(); err != nil {
		t.Fatalf("sqlite3: %v %s", err, out)
	}
	out, _, code := d.CLI(t.Context(), "audit", "verify")
	if code == 0 || !strings.Contains(out, "seq 2") {
		t.Fatalf("verify after deletion: exit %d, %q", code, out)
	}
}

// TestControlSocketRefusesOtherUID makes a throwaway user and has it connect
// to control.sock with the filesystem permissions opened up, so only the
// SO_PEERCRED check stands in its way.
func TestControlSocketRefusesOtherUID(t *testing.T) {
	if os.Getuid() != 0 {
		t.Fatal("this test creates a throwaway user and must run as root (make test runs it so)")
	}
	user := "ghpeer" + strconv.Itoa(os.Getpid()%100000)
	if out, err := exec.Command("useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", user).CombinedOutput(); err != nil {
		t.Fatalf("useradd: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("userdel", user).Run() })
	out, err := exec.Command("id", "-u", user).Output()
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(strings.TrimSpace(string(out)))

	d := clitest.Start(t)
	sock := filepath.Join(d.Data, "control.sock")
	// Open every filesystem door on the way to the socket.
	for p := d.Data; p != "/" && p != os.TempDir(); p = filepath.Dir(p) {
		os.Chmod(p, 0o755)
	}
	if err := os.Chmod(sock, 0o777); err != nil {
		t.Fatal(err)
	}
	// The other user runs the real CLI against the socket and must be turned away.
	probe := exec.Command(d.Bin, "--data", d.Data, "kill", "--reason", "intruder")
	probe.Env = []string{"PATH=/usr/bin:/bin", "HOME=/"}
	probe.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
	got, err := probe.CombinedOutput()
	if err == nil {
		t.Fatalf("kill as %s succeeded: %s", user, got)
	}
	// Nothing was killed, and the refusal was logged.
	if out, _, _ := d.CLI(t.Context(), "log", "--json", "--kind", "system.kill"); strings.Contains(out, "system.kill") {
		t.Fatal("a peer of another uid killed the agents")
	}
	if !strings.Contains(d.Log(), "refused peer of another user") {
		t.Fatalf("refusal not logged:\n%s", d.Log())
	}
	// The same request from our own uid works.
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("GET /api/v1/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 64)
	n, _ := c.Read(buf)
	if !strings.HasPrefix(string(buf[:n]), "HTTP/1.1 200") {
		t.Fatalf("own uid got %q", buf[:n])
	}
}
