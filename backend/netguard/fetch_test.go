package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// trap is a real TCP listener that must never see a connection from the
// guard. untouched proves it without sleeping: accept order is FIFO, so when
// a sentinel connection made after every fetch is the first one accepted,
// nothing came before it.
type trap struct {
	ln       net.Listener
	accepted chan net.Conn
}

func newTrap(t *testing.T, network, addr string) *trap {
	t.Helper()
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Skipf("cannot listen on %s: %v", addr, err)
	}
	tr := &trap{ln: ln, accepted: make(chan net.Conn, 64)}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				close(tr.accepted)
				return
			}
			tr.accepted <- c
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		for c := range tr.accepted {
			c.Close()
		}
	})
	return tr
}

func (tr *trap) port() int { return tr.ln.Addr().(*net.TCPAddr).Port }

func (tr *trap) untouched(t *testing.T) {
	t.Helper()
	s, err := net.Dial(tr.ln.Addr().Network(), tr.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	first := <-tr.accepted
	defer first.Close()
	if first.RemoteAddr().String() != s.LocalAddr().String() {
		t.Fatalf("the listener accepted a connection from %s before the sentinel", first.RemoteAddr())
	}
}

// mapResolver answers from a table and counts lookups.
type mapResolver struct {
	mu    sync.Mutex
	m     map[string][]netip.Addr
	calls map[string]int
	// next, when set, replaces the answer after the first lookup of a name
	// (a rebinding DNS server).
	next map[string][]netip.Addr
}

func (r *mapResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.calls == nil {
		r.calls = map[string]int{}
	}
	r.calls[host]++
	if a, ok := r.next[host]; ok && r.calls[host] > 1 {
		return append([]netip.Addr(nil), a...), nil
	}
	a, ok := r.m[host]
	if !ok {
		return nil, fmt.Errorf("no such host %s", host)
	}
	return append([]netip.Addr(nil), a...), nil
}

func addrPortOf(t *testing.T, rawURL string) netip.AddrPort {
	t.Helper()
	ap, err := netip.ParseAddrPort(strings.TrimPrefix(rawURL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	return ap
}

func TestLocalListenerIsNeverReached(t *testing.T) {
	tr := newTrap(t, "tcp4", "127.0.0.1:0")
	p := tr.port()
	g := New(Options{}) // real resolver, nothing permitted
	urls := []string{
		"http://127.0.0.1:%d/",
		"http://127.0.0.1.:%d/",
		"http://localhost:%d/",
		"http://LOCALHOST.:%d/",
		"http://2130706433:%d/",
		"http://0x7f.1:%d/",
		"http://0x7f000001:%d/",
		"http://017700000001:%d/",
		"http://0177.0.0.1:%d/",
		"http://127.1:%d/",
		"http://127.0.1:%d/",
		"http://0.0.0.0:%d/",
		"http://0:%d/",
		"http://[::ffff:127.0.0.1]:%d/",
		"http://[::ffff:7f00:1]:%d/",
		"http://[::127.0.0.1]:%d/",
		"http://[64:ff9b::7f00:1]:%d/",
		"http://[2002:7f00:1::]:%d/",
		"https://127.0.0.1:%d/",
		"http://evil.example@127.0.0.1:%d/",
		"http://127.0.0.1:%d#@example.com/",
	}
	for _, f := range urls {
		u := fmt.Sprintf(f, p)
		res, err := g.Fetch(t.Context(), u)
		if err == nil {
			t.Errorf("%s fetched (status %d)", u, res.Status)
			continue
		}
		if !errors.Is(err, ErrBlocked) {
			t.Errorf("%s: error %v is not a refusal", u, err)
		}
	}
	tr.untouched(t)
}

func TestLocalIPv6ListenerIsNeverReached(t *testing.T) {
	tr := newTrap(t, "tcp6", "[::1]:0")
	g := New(Options{})
	for _, f := range []string{"http://[::1]:%d/", "http://[0:0:0:0:0:0:0:1]:%d/", "http://ip6-localhost:%d/"} {
		u := fmt.Sprintf(f, tr.port())
		if _, err := g.Fetch(t.Context(), u); err == nil {
			t.Errorf("%s fetched", u)
		}
	}
	tr.untouched(t)
}

func TestPublicNameResolvingToLoopbackIsRefused(t *testing.T) {
	tr := newTrap(t, "tcp4", "127.0.0.1:0")
	res := &mapResolver{m: map[string][]netip.Addr{
		"public.example":  {netip.MustParseAddr("127.0.0.1")},
		"mixed.example":   {netip.MustParseAddr("93.184.215.14"), netip.MustParseAddr("127.0.0.1")},
		"mapped.example":  {netip.MustParseAddr("::ffff:127.0.0.1")},
		"private.example": {netip.MustParseAddr("10.0.0.5")},
		"meta.example":    {netip.MustParseAddr("169.254.169.254")},
	}}
	g := New(Options{Resolver: res})
	for name := range res.m {
		u := fmt.Sprintf("http://%s:%d/", name, tr.port())
		_, err := g.Fetch(t.Context(), u)
		var be *BlockedError
		if !errors.As(err, &be) {
			t.Errorf("%s: %v, want a refusal", name, err)
			continue
		}
		if !be.Addr.IsValid() || !strings.Contains(err.Error(), be.Addr.String()) {
			t.Errorf("%s: refusal %q does not name the address", name, err)
		}
	}
	tr.untouched(t)
}

// site starts an httptest server reachable as http://site.test:PORT through
// an injected resolver and a test permit for exactly its address.
func site(t *testing.T, h http.Handler, extra map[string][]netip.Addr) (*Guard, *mapResolver, string, func(o *Options)) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	ap := addrPortOf(t, srv.URL)
	res := &mapResolver{m: map[string][]netip.Addr{"site.test": {ap.Addr()}}}
	for k, v := range extra {
		res.m[k] = v
	}
	base := fmt.Sprintf("http://site.test:%d", ap.Port())
	opts := Options{Resolver: res, PermitForTesting: []netip.AddrPort{ap}}
	return New(opts), res, base, func(o *Options) {
		o.Resolver, o.PermitForTesting = res, []netip.AddrPort{ap}
	}
}

func TestFetchHappyPath(t *testing.T) {
	g, _, base, _ := site(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/start":
			http.Redirect(w, r, "/hello", http.StatusFound)
		case "/hello":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			fmt.Fprint(w, "hello from the test server")
		}
	}), nil)
	r, err := g.Fetch(t.Context(), base+"/start")
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != 200 || string(r.Body) != "hello from the test server" || r.Truncated ||
		r.ContentType != "text/plain; charset=utf-8" || r.FinalURL != base+"/hello" {
		t.Fatalf("result %+v body %q", r, r.Body)
	}
}

func TestRedirectsAreRechecked(t *testing.T) {
	tr := newTrap(t, "tcp4", "127.0.0.1:0")
	targets := map[string]string{
		"/to-loopback":   fmt.Sprintf("http://127.0.0.1:%d/", tr.port()),
		"/to-localhost":  fmt.Sprintf("http://localhost:%d/", tr.port()),
		"/to-decimal":    fmt.Sprintf("http://2130706433:%d/", tr.port()),
		"/to-rebound":    fmt.Sprintf("http://rebound.test:%d/", tr.port()),
		"/to-metadata":   "http://169.254.169.254/latest/meta-data/iam/",
		"/to-file":       "file:///etc/passwd",
		"/to-creds":      fmt.Sprintf("http://u:p@127.0.0.1:%d/", tr.port()),
		"/to-mapped-ip6": fmt.Sprintf("http://[::ffff:127.0.0.1]:%d/", tr.port()),
	}
	g, _, base, _ := site(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, targets[r.URL.Path], http.StatusFound)
	}), map[string][]netip.Addr{"rebound.test": {netip.MustParseAddr("127.0.0.1")}})
	for path := range targets {
		_, err := g.Fetch(t.Context(), base+path)
		if !errors.Is(err, ErrBlocked) {
			t.Errorf("redirect %s: %v, want a refusal", path, err)
		}
	}
	tr.untouched(t)
}

func TestRedirectLimit(t *testing.T) {
	var hits atomic.Int32
	g, _, base, _ := site(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Redirect(w, r, "/again", http.StatusFound)
	}), nil)
	_, err := g.Fetch(t.Context(), base+"/")
	if err == nil || !strings.Contains(err.Error(), "more than 5 redirects") {
		t.Fatalf("err %v", err)
	}
	if n := hits.Load(); n != 6 {
		t.Errorf("%d requests, want 6 (the first and 5 redirects)", n)
	}
}

func TestPinnedAddressDefeatsRebinding(t *testing.T) {
	tr := newTrap(t, "tcp4", "127.0.0.1:0")
	var hits atomic.Int32
	g, res, base, _ := site(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) < 3 {
			http.Redirect(w, r, "/next", http.StatusFound)
			return
		}
		fmt.Fprint(w, "done")
	}), nil)
	// After the first answer the name "moves" to the trap's address.
	res.next = map[string][]netip.Addr{"site.test": {netip.MustParseAddr("127.0.0.1")}}
	r, err := g.Fetch(t.Context(), base+"/")
	if err != nil {
		t.Fatal(err)
	}
	if string(r.Body) != "done" {
		t.Fatalf("body %q", r.Body)
	}
	if n := res.calls["site.test"]; n != 1 {
		t.Errorf("%d lookups of site.test in one fetch, want 1", n)
	}
	tr.untouched(t)
}

func TestSizeCap(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	_, _, base, with := site(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, big)
	}), nil)
	o := Options{MaxBytes: 1000}
	with(&o)
	r, err := New(o).Fetch(t.Context(), base+"/")
	if err != nil {
		t.Fatal(err)
	}
	if !r.Truncated || !strings.HasPrefix(string(r.Body), strings.Repeat("x", 1000)+"\n[gatehouse: response truncated at 1000 bytes]") {
		t.Fatalf("truncated %v, body tail %q", r.Truncated, r.Body[990:])
	}
	o.MaxBytes = 2 << 20
	r, err = New(o).Fetch(t.Context(), base+"/")
	if err != nil || r.Truncated || len(r.Body) != len(big) {
		t.Fatalf("uncapped fetch: %v truncated=%v len=%d", err, r.Truncated, len(r.Body))
	}
}

func TestCheckHostHook(t *testing.T) {
	errNotListed := errors.New("other.test is not on the allowlist")
	_, _, base, with := site(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://other.test/", http.StatusFound)
	}), map[string][]netip.Addr{"other.test": {netip.MustParseAddr("93.184.215.14")}})
	var asked []string
	o := Options{CheckHost: func(_ context.Context, host string) error {
		asked = append(asked, host)
		if host != "site.test" {
			return errNotListed
		}
		return nil
	}}
	with(&o)
	_, err := New(o).Fetch(t.Context(), base+"/")
	if !errors.Is(err, errNotListed) {
		t.Fatalf("err %v, want the hook's error", err)
	}
	if strings.Join(asked, ",") != "site.test,other.test" {
		t.Errorf("hook asked about %v", asked)
	}
}

func TestTimeout(t *testing.T) {
	release := make(chan struct{})
	_, _, base, with := site(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}), nil)
	t.Cleanup(func() { close(release) })
	o := Options{Timeout: 100 * time.Millisecond}
	with(&o)
	_, err := New(o).Fetch(t.Context(), base+"/slow")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want a deadline error", err)
	}
}

func TestProxyEnvironmentIsIgnored(t *testing.T) {
	tr := newTrap(t, "tcp4", "127.0.0.1:0")
	proxy := fmt.Sprintf("http://127.0.0.1:%d", tr.port())
	t.Setenv("HTTP_PROXY", proxy)
	t.Setenv("http_proxy", proxy)
	g, _, base, _ := site(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "direct")
	}), nil)
	r, err := g.Fetch(t.Context(), base+"/")
	if err != nil || string(r.Body) != "direct" {
		t.Fatalf("%v %q", err, r.Body)
	}
	tr.untouched(t)
}
