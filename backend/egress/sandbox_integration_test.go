//go:build integration

package egress_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/egress"
	"github.com/gatehouse-dev/gatehouse/backend/egress/tlstest"
	"github.com/gatehouse-dev/gatehouse/bench/medians"
	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/bwrap"
	"github.com/gatehouse-dev/gatehouse/sandbox/container/containertest"
	"github.com/gatehouse-dev/gatehouse/sandbox/landlock"
	"github.com/gatehouse-dev/gatehouse/sandbox/launch/launchtest"
)

// The test binary doubles as the sandbox helper, as gatehouse does.
func TestMain(m *testing.M) { launchtest.Main(m) }

// servers are the made-up hosts of these tests: one HTTPS server with a
// certificate for every name, and one plain HTTP server.
type servers struct {
	tls, plain *httptest.Server
	caPEM      []byte
	hits       atomic.Int32
}

func startServers(t testing.TB) *servers {
	t.Helper()
	s := &servers{}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		fmt.Fprintf(w, "hello from %s\n", r.Host)
	})
	s.tls, s.caPEM = tlstest.Server(t, handler, "pkgs.example.test", "evil.example.test", "other.example.test")
	s.plain = httptest.NewServer(handler)
	t.Cleanup(s.plain.Close)
	return s
}

func addr(srv *httptest.Server) string {
	return strings.TrimPrefix(strings.TrimPrefix(srv.URL, "https://"), "http://")
}

// decider allows "domain:port" entries and remembers every question.
type decider struct {
	mu    sync.Mutex
	allow map[string]bool
	asked []string
}

func (d *decider) Decide(_ context.Context, q egress.Question) (egress.Answer, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	k := fmt.Sprintf("%s:%d", q.Domain, q.Port)
	d.asked = append(d.asked, k)
	if d.allow[k] {
		return egress.Answer{Allow: true}, nil
	}
	return egress.Answer{Reason: "the person denied it"}, nil
}

func (d *decider) questions() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.asked...)
}

type recorder struct {
	mu   sync.Mutex
	recs []egress.Connection
}

func (r *recorder) Connection(_ context.Context, c egress.Connection) {
	r.mu.Lock()
	r.recs = append(r.recs, c)
	r.mu.Unlock()
}

func (r *recorder) refusals() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, c := range r.recs {
		out = append(out, c.Refused)
	}
	return strings.Join(out, "\n")
}

// staticResolver answers the one name that resolves to a private address.
type staticResolver map[string][]netip.Addr

func (r staticResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := r[host]; ok {
		return a, nil
	}
	return nil, fmt.Errorf("no such host %s", host)
}

type world struct {
	srv   *servers
	proxy *egress.Proxy
	ws    string
}

func newWorld(t testing.TB) *world {
	t.Helper()
	s := startServers(t)
	p, err := egress.New(egress.Options{
		Resolver: staticResolver{"private.example.test": {netip.MustParseAddr("10.0.0.5")}},
		TestHosts: map[string]string{
			"pkgs.example.test:443":  addr(s.tls),
			"pkgs.example.test:8443": addr(s.tls),
			"evil.example.test:443":  addr(s.tls),
			"plain.example.test:80":  addr(s.plain),
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "ca.pem"), s.caPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	return &world{srv: s, proxy: p, ws: ws}
}

// run runs argv in sess through a fresh proxy run of the world.
func (w *world) run(t *testing.T, sess sandbox.Session, d *decider, rec *recorder, argv ...string) sandbox.Result {
	t.Helper()
	return w.runWith(t, sess, d, rec, sandbox.Spec{}, argv...)
}

// runWith is run with like's read-only flag.
func (w *world) runWith(t *testing.T, sess sandbox.Session, d *decider, rec *recorder, like sandbox.Spec, argv ...string) sandbox.Result {
	t.Helper()
	run := w.proxy.Open(t.Context(), egress.RunInfo{Session: "s", Call: "c", Argv: argv, Decider: d, Recorder: rec})
	defer run.Close()
	lim := sandbox.DefaultLimits()
	lim.Wall = 60 * time.Second
	r, err := sess.Run(t.Context(), sandbox.Spec{
		Argv: argv, Env: []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C"}, Limits: lim,
		Network: sandbox.Network{Mode: sandbox.NetProxy, Proxy: run}, ReadOnlyWorkspaces: like.ReadOnlyWorkspaces,
	})
	if err != nil {
		t.Fatalf("%v: %v", argv, err)
	}
	return r
}

func nativeBackends(t *testing.T) []sandbox.Backend {
	bw, err := bwrap.New(t.Context(), bwrap.Options{})
	if err != nil {
		t.Fatalf("bwrap unavailable (install bubblewrap and allow user namespaces): %v", err)
	}
	ll, err := landlock.New(landlock.Options{})
	if err != nil {
		t.Fatalf("landlock unavailable: %v", err)
	}
	return []sandbox.Backend{bw, ll}
}

func open(t *testing.T, b sandbox.Backend, ws string) sandbox.Session {
	s, err := b.Open(t.Context(), sandbox.SessionSpec{ID: "egress", Workspaces: []string{ws}, Limits: sandbox.DefaultLimits()})
	if err != nil {
		t.Fatalf("%s: %v", b.Name(), err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	return s
}

// curl inside bwrap and Landlock, through the proxy: what is approved
// works, and everything else fails in the command itself, with the
// proxy's reason in its audit record.
func TestCurlThroughProxy(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatalf("curl is needed for the proxy tests (apt install curl): %v", err)
	}
	w := newWorld(t)
	tlsPort := strings.Split(addr(w.srv.tls), ":")[1]
	curl := []string{"curl", "-sS", "--max-time", "20", "--cacert", "ca.pem"}
	with := func(args ...string) []string { return append(append([]string(nil), curl...), args...) }
	tests := []struct {
		name     string
		argv     []string
		ok       bool
		out      string // in stdout when ok
		refusal  string // in the proxy's records when refused there
		question string // the decider must have been asked this
	}{
		{"approved https", with("https://pkgs.example.test/"), true, "hello from pkgs.example.test", "", "pkgs.example.test:443"},
		{"approved http", with("http://plain.example.test/"), true, "hello from plain.example.test", "", "plain.example.test:80"},
		{"unapproved", with("https://other.example.test/"), false, "", "the person denied it", "other.example.test:443"},
		{"noproxy", with("--noproxy", "*", "https://pkgs.example.test/"), false, "", "", ""},
		{"direct to the server", with("--noproxy", "*", "https://127.0.0.1:"+tlsPort+"/"), false, "", "", ""},
		{"sni differs from connect", with("--connect-to", "evil.example.test:443:pkgs.example.test:443", "https://evil.example.test/"), false, "", `"evil.example.test" differs from the CONNECT's pkgs.example.test`, "pkgs.example.test:443"},
		{"ip literal", with("-k", "https://192.0.2.10/"), false, "", "192.0.2.10 is an IP address", ""},
		{"private address", with("https://private.example.test/"), false, "", "10.0.0.5, a private network address", "private.example.test:443"},
		{"another port", with("https://pkgs.example.test:8443/"), false, "", "pkgs.example.test:8443", "pkgs.example.test:8443"},
	}
	for _, b := range nativeBackends(t) {
		t.Run(b.Name(), func(t *testing.T) {
			sess := open(t, b, w.ws)
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					d := &decider{allow: map[string]bool{"pkgs.example.test:443": true, "plain.example.test:80": true, "private.example.test:443": true}}
					rec := &recorder{}
					before := w.srv.hits.Load()
					r := w.run(t, sess, d, rec, tc.argv...)
					if tc.ok {
						if r.ExitCode != 0 || !strings.Contains(string(r.Stdout), tc.out) {
							t.Fatalf("exit %d, stdout %q, stderr %q", r.ExitCode, r.Stdout, r.Stderr)
						}
						return
					}
					if r.ExitCode == 0 {
						t.Fatalf("it worked: %q", r.Stdout)
					}
					if got := w.srv.hits.Load() - before; got != 0 {
						t.Errorf("a server answered %d requests", got)
					}
					if tc.refusal != "" && !strings.Contains(rec.refusals(), tc.refusal) {
						t.Errorf("no refusal says %q: %q (curl: %s)", tc.refusal, rec.refusals(), r.Stderr)
					}
					if qs := strings.Join(d.questions(), " "); tc.question != "" && !strings.Contains(qs, tc.question) || tc.question == "" && qs != "" {
						t.Errorf("asked %q, want %q", qs, tc.question)
					}
					t.Logf("refused: %s", strings.TrimSpace(string(r.Stderr)))
				})
			}
		})
	}
}

// In a container the proxy's socket comes from the ready helper; busybox
// wget stands in for curl, which the test image lacks.
func TestWgetThroughProxyInContainer(t *testing.T) {
	b := containertest.Podman(t, launchtest.StaticHelper(t))
	// Plain, and as the daemon runs a command: in a session with a stage
	// root, in namespaces of its own inside the container.
	for _, nested := range []bool{false, true} {
		t.Run(fmt.Sprintf("nested=%v", nested), func(t *testing.T) {
			w := newWorld(t)
			ss := sandbox.SessionSpec{ID: "egress", Workspaces: []string{w.ws}, Limits: sandbox.DefaultLimits()}
			if nested {
				ss.StageRoot = t.TempDir()
			}
			sess, err := b.Open(t.Context(), ss)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = sess.Close(context.Background()) })
			like := sandbox.Spec{ReadOnlyWorkspaces: nested}
			d := &decider{allow: map[string]bool{"plain.example.test:80": true}}
			rec := &recorder{}
			r := w.runWith(t, sess, d, rec, like, "busybox", "wget", "-q", "-O", "-", "http://plain.example.test/")
			if r.ExitCode != 0 || !strings.Contains(string(r.Stdout), "hello from plain.example.test") {
				t.Fatalf("approved: exit %d %q %q", r.ExitCode, r.Stdout, r.Stderr)
			}
			before := w.srv.hits.Load()
			r = w.runWith(t, sess, d, rec, like, "busybox", "wget", "-q", "-O", "-", "http://unapproved.example.test/")
			if r.ExitCode == 0 || !strings.Contains(rec.refusals(), "the person denied it") {
				t.Fatalf("unapproved: exit %d %q, refusals %q", r.ExitCode, r.Stderr, rec.refusals())
			}
			_, port, _ := net.SplitHostPort(addr(w.srv.plain))
			r = w.runWith(t, sess, d, rec, like, "busybox", "wget", "-q", "-O", "-", "-Y", "off", "http://127.0.0.1:"+port+"/")
			if r.ExitCode == 0 || w.srv.hits.Load() != before {
				t.Fatalf("direct: exit %d %q", r.ExitCode, r.Stdout)
			}
		})
	}
}

// BenchmarkCurlHTTPSThroughProxy is the same comparison with curl, a real
// client process: a request through a run's proxy against one straight to
// the server (same name, certificate and TLS), interleaved, medians.
func BenchmarkCurlHTTPSThroughProxy(b *testing.B) {
	w := newWorld(b)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	run := w.proxy.Open(b.Context(), egress.RunInfo{Session: "s", Call: "c", Decider: &decider{allow: map[string]bool{"pkgs.example.test:443": true}}})
	go run.Serve(ln)
	defer run.Close()
	ca := filepath.Join(w.ws, "ca.pem")
	curl := func(args ...string) time.Duration {
		start := time.Now()
		out, err := exec.Command("curl", append([]string{"-sS", "--cacert", ca}, args...)...).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "hello from pkgs.example.test") {
			b.Fatalf("curl %v: %v %s", args, err, out)
		}
		return time.Since(start)
	}
	var direct, proxied []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		direct = append(direct, curl("--noproxy", "*", "--connect-to", "pkgs.example.test:443:"+addr(w.srv.tls), "https://pkgs.example.test/"))
		proxied = append(proxied, curl("--proxy", "http://"+ln.Addr().String(), "https://pkgs.example.test/"))
	}
	b.StopTimer()
	medians.Report(b, direct, proxied, medians.Units{Base: "ms-direct-median", Run: "ms-proxy-median", Added: "ms-added", Ratio: "x-direct"})
}
