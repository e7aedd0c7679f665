package egress

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// decider answers from a table of "domain:port" → allow and counts the
// questions.
type decider struct {
	mu    sync.Mutex
	allow map[string]bool
	asked []Question
}

func (d *decider) Decide(_ context.Context, q Question) (Answer, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.asked = append(d.asked, q)
	if d.allow[fmt.Sprintf("%s:%d", q.Domain, q.Port)] {
		return Answer{Allow: true}, nil
	}
	return Answer{Reason: "the person denied it"}, nil
}

func (d *decider) questions() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.asked)
}

type recorder struct {
	mu   sync.Mutex
	recs []Connection
}

func (r *recorder) Connection(_ context.Context, c Connection) {
	r.mu.Lock()
	r.recs = append(r.recs, c)
	r.mu.Unlock()
}

func (r *recorder) all() []Connection {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Connection(nil), r.recs...)
}

// resolver answers from a table and counts lookups.
type resolver struct {
	m       map[string][]netip.Addr
	lookups atomic.Int32
}

func (r *resolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.lookups.Add(1)
	if a, ok := r.m[host]; ok {
		return a, nil
	}
	return nil, errors.New("no such host")
}

// fixture is a proxy run on a loopback listener, as a backend would hand it.
type fixture struct {
	addr string
	dec  *decider
	rec  *recorder
	res  *resolver
	run  *Run
}

func newFixture(t testing.TB, tests map[string]string, allow ...string) *fixture {
	t.Helper()
	f := &fixture{dec: &decider{allow: map[string]bool{}}, rec: &recorder{}, res: &resolver{m: map[string][]netip.Addr{
		"loopback.example.test": {netip.MustParseAddr("127.0.0.1")},
		"private.example.test":  {netip.MustParseAddr("10.0.0.5")},
		"metadata.example.test": {netip.MustParseAddr("169.254.169.254")},
	}}}
	for _, a := range allow {
		f.dec.allow[a] = true
	}
	p, err := New(Options{Resolver: f.res, TestHosts: tests, DialTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f.run = p.Open(t.Context(), RunInfo{Session: "s1", Call: "c1", Argv: []string{"curl"}, Decider: f.dec, Recorder: f.rec})
	go f.run.Serve(ln)
	t.Cleanup(func() {
		ln.Close()
		f.run.Close()
	})
	f.addr = ln.Addr().String()
	return f
}

// client goes through the proxy and trusts srv's certificate for name.
func (f *fixture) client(srv *httptest.Server) *http.Client {
	proxy, _ := url.Parse("http://" + f.addr)
	tr := &http.Transport{Proxy: http.ProxyURL(proxy), DisableKeepAlives: true}
	if srv != nil && srv.TLS != nil {
		tr.TLSClientConfig = srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	}
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

func tlsServer(t testing.TB) *httptest.Server { return tlsServerCounting(t, nil) }

// tlsServerCounting is tlsServer counting the connections it accepts in
// accepted (set before it starts: the server reads it as it serves).
func tlsServerCounting(t testing.TB, accepted *atomic.Int32) *httptest.Server {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from %s", r.Host)
	}))
	srv.EnableHTTP2 = false
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes
	if accepted != nil {
		srv.Config.ConnState = func(net.Conn, http.ConnState) { accepted.Add(1) }
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	// The test certificate is for example.com; these tests name servers
	// with made-up names, so trust the certificate for any of them.
	cfg := srv.Client().Transport.(*http.Transport).TLSClientConfig
	cfg.InsecureSkipVerify = true
	return srv
}

func plainServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprintf(w, "plain %s %s", r.Host, r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func hostPort(srv *httptest.Server) string {
	return strings.TrimPrefix(strings.TrimPrefix(srv.URL, "https://"), "http://")
}

func get(t *testing.T, c *http.Client, u string) (int, string, error) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), nil
}

func TestApprovedHTTPSAndHTTP(t *testing.T) {
	tsrv := tlsServer(t)
	psrv, _ := plainServer(t)
	f := newFixture(t, map[string]string{
		"pkgs.example.test:443": hostPort(tsrv),
		"plain.example.test:80": hostPort(psrv),
	}, "pkgs.example.test:443", "plain.example.test:80")
	code, body, err := get(t, f.client(tsrv), "https://pkgs.example.test/index")
	if err != nil || code != 200 || body != "hello from pkgs.example.test" {
		t.Fatalf("https: %d %q %v", code, body, err)
	}
	code, body, err = get(t, f.client(nil), "http://plain.example.test/x")
	if err != nil || code != 200 || body != "plain plain.example.test /x" {
		t.Fatalf("http: %d %q %v", code, body, err)
	}
	f.run.Close()
	recs := f.rec.all()
	if len(recs) != 2 {
		t.Fatalf("records: %+v", recs)
	}
	for _, r := range recs {
		if r.Refused != "" || r.BytesUp == 0 || r.BytesDown == 0 || r.Duration <= 0 || r.Addr == "" || r.Session != "s1" || r.Call != "c1" {
			t.Errorf("record %+v", r)
		}
	}
	seen := map[string]bool{}
	for _, r := range recs {
		seen[fmt.Sprintf("%s %s:%d", r.Method, r.Domain, r.Port)] = true
	}
	if !seen["CONNECT pkgs.example.test:443"] || !seen["GET plain.example.test:80"] {
		t.Errorf("records %+v", recs)
	}
}

// Refusals: each says why in one sentence, nothing reaches a server, and
// names the person has not approved are never resolved.
func TestRefusals(t *testing.T) {
	psrv, hits := plainServer(t)
	tsrv := tlsServer(t)
	f := newFixture(t, map[string]string{
		"denied.example.test:443": hostPort(tsrv),
		"plain.example.test:80":   hostPort(psrv),
	}, "loopback.example.test:443", "private.example.test:443", "metadata.example.test:443", "plain.example.test:80")
	tests := []struct {
		name, url string
		want      string // in the refusal
		asks      int    // questions this one adds
	}{
		{"denied", "https://denied.example.test/", "the person denied it", 1},
		{"ip literal", "https://127.0.0.1:" + strings.Split(hostPort(tsrv), ":")[1] + "/", "is an IP address", 0},
		{"public ip literal", "https://8.8.8.8/", "is an IP address", 0},
		{"loopback name", "https://loopback.example.test/", "loopback", 1},
		{"private name", "https://private.example.test/", "private network", 1},
		{"metadata name", "https://metadata.example.test/", "metadata", 1},
		{"localhost", "https://localhost/", "localhost", 0},
		{"plain ip literal", "http://127.0.0.1:" + strings.Split(hostPort(psrv), ":")[1] + "/", "IP address", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := f.dec.questions()
			err := refusedGet(t, f, tc.url)
			if !strings.Contains(err, tc.want) {
				t.Errorf("refusal %q does not mention %q", err, tc.want)
			}
			if got := f.dec.questions() - before; got != tc.asks {
				t.Errorf("asked %d times, want %d", got, tc.asks)
			}
		})
	}
	if hits.Load() != 0 {
		t.Errorf("the plain server was reached %d times", hits.Load())
	}
	if n := f.res.lookups.Load(); n != 3 {
		t.Errorf("%d lookups; only the three approved names should be resolved", n)
	}
}

// refusedGet sends a request through the proxy by hand and returns the
// refusal sentence it gets back.
func refusedGet(t *testing.T, f *fixture, raw string) string {
	t.Helper()
	u, _ := url.Parse(raw)
	c, err := net.Dial("tcp", f.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if u.Scheme == "https" {
		host := u.Host
		if u.Port() == "" {
			host += ":443"
		}
		fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", host, host)
	} else {
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", raw, u.Host)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == 200 {
		t.Fatalf("%s: proxied", raw)
	}
	return resp.Header.Get("X-Gatehouse-Refused")
}

// With the test hosts empty (the default), a name that resolves to
// loopback is refused; with it, only the listed name reaches the server.
func TestLoopbackNeedsTheTestOverride(t *testing.T) {
	psrv, hits := plainServer(t)
	_, port, _ := net.SplitHostPort(hostPort(psrv))
	without := newFixture(t, nil, "loopback.example.test:"+port)
	if err := refusedGet(t, without, "http://loopback.example.test:"+port+"/"); !strings.Contains(err, "loopback") {
		t.Errorf("without the override: %q", err)
	}
	with := newFixture(t, map[string]string{"loopback.example.test": "127.0.0.1"}, "loopback.example.test:"+port)
	code, _, err := get(t, with.client(nil), "http://loopback.example.test:"+port+"/")
	if err != nil || code != 200 || hits.Load() != 1 {
		t.Errorf("with the override: %d %v, %d hits", code, err, hits.Load())
	}
}

func TestSNIMustMatchConnect(t *testing.T) {
	var accepted atomic.Int32
	tsrv := tlsServerCounting(t, &accepted)
	f := newFixture(t, map[string]string{"pkgs.example.test:443": hostPort(tsrv)}, "pkgs.example.test:443")
	for _, tc := range []struct {
		name, sni string
		tls       bool
	}{
		{"other name", "evil.example.test", true},
		{"no name", "", true},
		{"not TLS", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("tcp", f.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			fmt.Fprintf(c, "CONNECT pkgs.example.test:443 HTTP/1.1\r\nHost: pkgs.example.test:443\r\n\r\n")
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"})
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("CONNECT: %v %v", resp, err)
			}
			var hsErr error
			if tc.tls {
				tc := tls.Client(&bufConn{Conn: c, r: br}, &tls.Config{ServerName: tc.sni, InsecureSkipVerify: true})
				hsErr = tc.Handshake()
			} else {
				fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: evil.example.test\r\n\r\n")
				_, hsErr = http.ReadResponse(br, nil)
			}
			if hsErr == nil {
				t.Fatal("the tunnel carried it")
			}
		})
	}
	f.run.Close()
	for _, r := range f.rec.all() {
		if r.Refused == "" || r.BytesUp != 0 {
			t.Errorf("record %+v: want refused with nothing sent up", r)
		}
	}
	var why []string
	for _, r := range f.rec.all() {
		why = append(why, r.Refused)
	}
	all := strings.Join(why, "\n")
	for _, want := range []string{`"evil.example.test" differs from the CONNECT's pkgs.example.test`, "names no server", "does not start with a TLS handshake"} {
		if !strings.Contains(all, want) {
			t.Errorf("no refusal says %q:\n%s", want, all)
		}
	}
	// The proxy dials before it answers 200, so the server saw
	// connections; what matters is that they carried nothing (BytesUp).
	_ = accepted.Load()
}

type bufConn struct {
	net.Conn
	r *bufio.Reader
}

func (b *bufConn) Read(p []byte) (int, error) { return b.r.Read(p) }

// A CONNECT to another port of an approved domain asks again, and is
// refused when that is not approved.
func TestOtherPortAsksAgain(t *testing.T) {
	tsrv := tlsServer(t)
	f := newFixture(t, map[string]string{"pkgs.example.test:443": hostPort(tsrv), "pkgs.example.test:8443": hostPort(tsrv)}, "pkgs.example.test:443")
	if code, _, err := get(t, f.client(tsrv), "https://pkgs.example.test/"); err != nil || code != 200 {
		t.Fatalf("443: %d %v", code, err)
	}
	if err := refusedGet(t, f, "https://pkgs.example.test:8443/"); !strings.Contains(err, "pkgs.example.test:8443") {
		t.Errorf("8443: %q", err)
	}
	if got := f.dec.questions(); got != 2 {
		t.Errorf("asked %d times, want once per port", got)
	}
}

// Many connections at once to a new domain ask once.
func TestOneQuestionPerRun(t *testing.T) {
	tsrv := tlsServer(t)
	f := newFixture(t, map[string]string{"pkgs.example.test:443": hostPort(tsrv)}, "pkgs.example.test:443")
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if code, _, err := get(t, f.client(tsrv), "https://pkgs.example.test/"); err != nil || code != 200 {
				t.Errorf("%d %v", code, err)
			}
		}()
	}
	wg.Wait()
	if got := f.dec.questions(); got != 1 {
		t.Errorf("asked %d times", got)
	}
}

func TestPlainHostMustMatchURL(t *testing.T) {
	psrv, hits := plainServer(t)
	f := newFixture(t, map[string]string{"plain.example.test:80": hostPort(psrv)}, "plain.example.test:80")
	c, err := net.Dial("tcp", f.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET http://plain.example.test/ HTTP/1.1\r\nHost: evil.example.test\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || resp.StatusCode != 403 || !strings.Contains(resp.Header.Get("X-Gatehouse-Refused"), "Host header") {
		t.Fatalf("%v %v", resp, err)
	}
	if hits.Load() != 0 {
		t.Error("the server was reached")
	}
}

func TestTestHostsAreChecked(t *testing.T) {
	for _, bad := range []map[string]string{
		{"127.0.0.1": "127.0.0.1"},
		{"pkgs.example.test": "not-an-ip"},
		{"pkgs.example.test:99999": "127.0.0.1:1"},
		{"pkgs.example.test:443": "127.0.0.1"},
	} {
		if _, err := New(Options{TestHosts: bad}); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// waitingDecider asks a person who never answers: it returns only when
// its context ends, and says so on withdrawn.
type waitingDecider struct {
	asked     chan struct{}
	withdrawn chan error
}

func (d *waitingDecider) Decide(ctx context.Context, q Question) (Answer, error) {
	close(d.asked)
	<-ctx.Done()
	d.withdrawn <- ctx.Err()
	return Answer{}, ctx.Err()
}

// A run that ends while one of its connections waits for the person
// withdraws the question and closes at once, rather than holding the
// run's end until the card times out.
func TestCloseWithdrawsPendingQuestions(t *testing.T) {
	p, err := New(Options{Resolver: &resolver{}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dec := &waitingDecider{asked: make(chan struct{}), withdrawn: make(chan error, 1)}
	run := p.Open(t.Context(), RunInfo{Session: "s1", Call: "c1", Argv: []string{"curl"}, Decider: dec})
	go run.Serve(ln)
	c, err := net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "CONNECT nowhere.example.test:443 HTTP/1.1\r\nHost: nowhere.example.test:443\r\n\r\n")
	select {
	case <-dec.asked:
	case <-time.After(10 * time.Second):
		t.Fatal("the proxy never asked")
	}
	closed := make(chan struct{})
	go func() { run.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close waited for the person's answer")
	}
	if err := <-dec.withdrawn; !errors.Is(err, context.Canceled) {
		t.Errorf("the question ended with %v, want it withdrawn (context canceled)", err)
	}
}
