package netguard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Defaults for Options left at zero.
const (
	DefaultMaxBytes     = 5 << 20
	DefaultTimeout      = 30 * time.Second
	DefaultMaxRedirects = 5
)

// Resolver looks names up; *net.Resolver satisfies it. Tests inject their own.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Options configure a Guard. The zero value is safe.
type Options struct {
	MaxBytes     int64         // body cap; DefaultMaxBytes when zero
	Timeout      time.Duration // whole fetch, body included; DefaultTimeout when zero
	MaxRedirects int           // DefaultMaxRedirects when zero; negative follows none
	Resolver     Resolver      // net.DefaultResolver when nil
	// CheckHost is asked about the host of the first URL and of every
	// redirect target before anything is resolved. Policy plugs its domain
	// allowlist in here; a non-nil error stops the fetch and is returned
	// wrapped.
	CheckHost func(ctx context.Context, host string) error
	UserAgent string
	Logger    *slog.Logger
	// PermitForTesting lets these exact address:port pairs through the
	// address check, so tests can fetch from httptest servers on 127.0.0.1.
	// Never fill it from configuration.
	PermitForTesting []netip.AddrPort
}

// Result is a fetched response.
type Result struct {
	Status      int
	ContentType string
	FinalURL    string
	// Body holds at most MaxBytes of the body; when Truncated it is followed
	// by a one-line marker saying so.
	Body      []byte
	Truncated bool
}

// Guard fetches URLs safely. It is safe for concurrent use.
type Guard struct {
	opts   Options
	permit map[netip.AddrPort]bool
	log    *slog.Logger
}

// New returns a Guard with opts, defaults filled in.
func New(opts Options) *Guard {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxRedirects == 0 {
		opts.MaxRedirects = DefaultMaxRedirects
	}
	if opts.Resolver == nil {
		opts.Resolver = net.DefaultResolver
	}
	if opts.UserAgent == "" {
		opts.UserAgent = "Gatehouse-fetch/1"
	}
	g := &Guard{opts: opts, permit: map[netip.AddrPort]bool{}, log: opts.Logger}
	if g.log == nil {
		g.log = slog.New(slog.DiscardHandler)
	}
	for _, ap := range opts.PermitForTesting {
		g.permit[ap] = true
	}
	return g
}

// pins maps each host admitted during one fetch to its checked addresses.
// The dialer connects only to these, so DNS is consulted once per host.
type pins struct {
	mu sync.Mutex
	m  map[string][]netip.Addr
}

func (p *pins) get(host string) ([]netip.Addr, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	a, ok := p.m[host]
	return a, ok
}

func (p *pins) set(host string, a []netip.Addr) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.m[host] = a
}

// Fetch GETs rawURL and returns the response, bounded by MaxBytes.
func (g *Guard) Fetch(ctx context.Context, rawURL string) (*Result, error) {
	ctx, cancel := context.WithTimeout(ctx, g.opts.Timeout)
	defer cancel()
	u, err := CheckURL(rawURL)
	if err != nil {
		g.refused(err)
		return nil, err
	}
	pinned := &pins{m: map[string][]netip.Addr{}}
	if err := g.admit(ctx, u, pinned); err != nil {
		g.refused(err)
		return nil, err
	}
	tr := &http.Transport{
		Proxy:                  nil, // a proxy would resolve names itself, past the guard
		DialContext:            g.dialer(pinned),
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    g.opts.Timeout,
		MaxResponseHeaderBytes: 64 << 10,
		DisableKeepAlives:      true,
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{
		Transport: tr,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > g.opts.MaxRedirects {
				return &BlockedError{URL: safeURL(req.URL), Reason: "more than " + strconv.Itoa(max(g.opts.MaxRedirects, 0)) + " redirects"}
			}
			if err := checkParsed(req.URL); err != nil {
				return err
			}
			return g.admit(req.Context(), req.URL, pinned)
		},
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("cannot build a request for %s: %w", safeURL(u), err)
	}
	req.Header.Set("User-Agent", g.opts.UserAgent)
	resp, err := client.Do(req)
	if err != nil {
		var be *BlockedError
		if errors.As(err, &be) {
			g.refused(be)
			return nil, be
		}
		return nil, fmt.Errorf("fetching %s failed: %w", safeURL(u), unwrapURLError(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, g.opts.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading the response from %s failed: %w", safeURL(resp.Request.URL), unwrapURLError(err))
	}
	res := &Result{
		Status:      resp.StatusCode,
		ContentType: resp.Header.Get("Content-Type"),
		FinalURL:    resp.Request.URL.String(),
		Body:        body,
	}
	if int64(len(body)) > g.opts.MaxBytes {
		res.Truncated = true
		res.Body = append(body[:g.opts.MaxBytes:g.opts.MaxBytes],
			fmt.Sprintf("\n[gatehouse: response truncated at %d bytes]\n", g.opts.MaxBytes)...)
	}
	return res, nil
}

// admit runs the host hook, resolves the host, checks every address and pins
// them for the dialer.
func (g *Guard) admit(ctx context.Context, u *url.URL, pinned *pins) error {
	shown := safeURL(u)
	lit, name, berr := classifyHost(u.Hostname())
	if berr != nil {
		berr.URL = shown
		return berr
	}
	host := name
	if lit.IsValid() {
		host = pinKey(lit.String())
	}
	if g.opts.CheckHost != nil {
		if err := g.opts.CheckHost(ctx, host); err != nil {
			return fmt.Errorf("fetching %s is not allowed: %w", shown, err)
		}
	}
	if _, ok := pinned.get(host); ok {
		return nil // pinned earlier in this fetch; never resolve twice
	}
	port := portOf(u)
	var addrs []netip.Addr
	var err error
	if lit.IsValid() {
		addrs, err = checkAddrs(host, []netip.Addr{lit}, port, g.permits)
	} else {
		addrs, err = ResolveChecked(ctx, g.opts.Resolver, name, port, g.permits)
	}
	if err != nil {
		var be *BlockedError
		if errors.As(err, &be) {
			be.URL = shown
		}
		return err
	}
	pinned.set(host, addrs)
	return nil
}

func portOf(u *url.URL) uint16 {
	if p := u.Port(); p != "" {
		n, err := strconv.ParseUint(p, 10, 16)
		if err == nil {
			return uint16(n)
		}
		return 0
	}
	if u.Scheme == "https" {
		return 443
	}
	return 80
}

// dialer connects only to pinned addresses, and re-checks the exact socket
// address just before connect as a second line of defence.
func (g *Guard) dialer(pinned *pins) func(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: g.opts.Timeout, Control: DialControl(g.permits)}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, portStr, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		addrs, ok := pinned.get(pinKey(host))
		if !ok {
			return nil, &BlockedError{Host: host, Reason: "the host was not checked before connecting"}
		}
		var firstErr error
		for _, a := range addrs {
			c, err := d.DialContext(ctx, network, net.JoinHostPort(a.String(), portStr))
			if err == nil {
				return c, nil
			}
			if firstErr == nil {
				firstErr = err
			}
		}
		return nil, firstErr
	}
}

// permits is the PermitForTesting list as a Permit.
func (g *Guard) permits(a netip.AddrPort) bool { return g.permit[a] }

func (g *Guard) refused(err error) {
	var be *BlockedError
	if errors.As(err, &be) {
		g.log.Info("fetch refused", "url", be.URL, "host", be.Host, "reason", be.Reason)
	}
}

// unwrapURLError drops net/url's wrapper, whose message repeats the full URL
// (query included) and could carry a token into logs.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// pinKey normalises a host the same way for admit and for the dialer, which
// sees the host as net/http canonicalised it.
func pinKey(host string) string {
	if a, err := netip.ParseAddr(host); err == nil {
		return a.Unmap().WithZone("").String()
	}
	return strings.ToLower(strings.TrimSuffix(host, "."))
}
