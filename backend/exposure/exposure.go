// Package exposure opens the one way to decide cards from another device:
// a listener of its own that serves only a phone-sized approvals page and
// its decide API, behind a token shown once and traded for a cookie,
// until it expires or the person stops it. Exposures live in memory
// only: a daemon that restarts comes back with none open.
package exposure

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/approval"
	"github.com/gatehouse-dev/gatehouse/backend/randid"
	"github.com/gatehouse-dev/gatehouse/backend/token"
)

// Cards is the approval queue as an exposure sees it.
type Cards interface {
	Pending() []approval.Request
	Lookup(id string) (approval.Request, bool)
	Decide(ctx context.Context, id string, d approval.Decision) (approval.Request, error)
}

// Deps are what exposures need from the daemon.
type Deps struct {
	Cards Cards
	// Emit records an audit event.
	Emit   func(ctx context.Context, kind, actor, session string, payload any)
	Logger *slog.Logger
	// Tunnel is the person's tunnel program ([public] tunnel), started
	// with every exposure; nil for none.
	Tunnel     []string
	TunnelWait time.Duration
	// TunnelSettle is how long a tunnel that printed its URL must keep
	// running for the exposure to open (DefaultTunnelSettle).
	TunnelSettle time.Duration
}

// Options are one `public start`.
type Options struct {
	For    time.Duration
	Listen string // "" is loopback on a free port
}

// Info is an open exposure as status shows it: never its token.
type Info struct {
	ID     string `json:"id"`
	Listen string `json:"listen"`
	// URL is the page's address without the token.
	URL         string      `json:"url"`
	TLS         bool        `json:"tls"`
	Fingerprint string      `json:"fingerprint,omitempty"`
	Tunnel      *TunnelInfo `json:"tunnel,omitempty"`
	Opened      time.Time   `json:"opened"`
	Expires     time.Time   `json:"expires"`
	// Devices is how many devices traded the token (at most one: the
	// token works once), Decisions how many cards they decided.
	Devices   int `json:"devices"`
	Decisions int `json:"decisions"`
}

// Opened is what `public start` shows once: the link with the token, and
// the same as a QR code.
type Opened struct {
	Info
	Link   string `json:"link"`
	QRSVG  string `json:"qr_svg"`
	QRText string `json:"qr_text"`
}

// Manager holds the open exposures.
type Manager struct {
	deps Deps
	mu   sync.Mutex
	open map[string]*exposure
}

// New returns a manager with nothing open.
func New(deps Deps) *Manager {
	if deps.TunnelWait <= 0 {
		deps.TunnelWait = DefaultTunnelWait
	}
	if deps.TunnelSettle <= 0 {
		deps.TunnelSettle = DefaultTunnelSettle
	}
	return &Manager{deps: deps, open: map[string]*exposure{}}
}

// ErrNoSuchExposure: the id names no open exposure.
var ErrNoSuchExposure = errors.New("no open exposure has that id; see gatehouse public status")

// Open starts an exposure: its listener (TLS on a non-loopback address
// unless a tunnel carries it), its tunnel if one is configured, and the
// timer that ends it.
func (m *Manager) Open(ctx context.Context, o Options) (Opened, error) {
	if err := CheckFor(o.For); err != nil {
		return Opened{}, err
	}
	if o.Listen == "" {
		o.Listen = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(o.Listen)
	if err != nil {
		return Opened{}, fmt.Errorf("--listen %q must be host:port, such as 127.0.0.1:0 or 192.0.2.10:8443", o.Listen)
	}
	tok, err := token.New()
	if err != nil {
		return Opened{}, err
	}
	now := time.Now().UTC()
	x := &exposure{
		id: randid.New("x_", 8), tokenHash: token.Hash(tok), opened: now, expires: now.Add(o.For),
		fails: newFailures(10, time.Minute), devices: map[[sha256.Size]byte]string{}, cards: m.deps.Cards,
		emit: m.deps.Emit, logger: m.deps.Logger,
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return Opened{}, fmt.Errorf("cannot listen on %s for the exposure: %w", o.Listen, err)
	}
	x.listen = ln.Addr().String()
	port := ln.Addr().(*net.TCPAddr).Port
	urlHost := urlHostFor(host)
	scheme := "http"
	// Plain HTTP off this machine would carry the token in clear; a
	// tunnel the person names terminates TLS itself.
	if !isLoopback(host) && len(m.deps.Tunnel) == 0 {
		cert, fp, err := selfSigned(append([]string{urlHost}, hostsFor(host)...), x.expires)
		if err != nil {
			ln.Close()
			return Opened{}, err
		}
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
		x.tls, x.fingerprint, scheme = true, fp, "https"
	}
	base := scheme + "://" + net.JoinHostPort(urlHost, portOf(port))
	if len(m.deps.Tunnel) > 0 {
		tunHost := host
		if tunHost == "" || net.ParseIP(tunHost).IsUnspecified() {
			tunHost = "127.0.0.1"
		}
		t, err := startTunnel(m.deps.Tunnel, tunHost, portOf(port), m.deps.TunnelWait, m.deps.TunnelSettle)
		if err != nil {
			ln.Close()
			return Opened{}, err
		}
		x.tunnel = t
		if t.info.URL != "" {
			base = strings.TrimRight(t.info.URL, "/")
		}
	}
	x.path = "/e/" + x.id + "/"
	x.url = base + x.path
	x.srv = &http.Server{
		Handler:           x.handler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          slog.NewLogLogger(m.deps.Logger.Handler(), slog.LevelDebug),
	}
	go func() {
		if err := x.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			m.deps.Logger.Warn("exposure listener stopped", "exposure", x.id, "err", err)
		}
	}()
	m.mu.Lock()
	m.open[x.id] = x
	m.mu.Unlock()
	x.timer = time.AfterFunc(o.For, func() { m.close(context.Background(), x.id, "expired") })
	if x.tunnel != nil {
		// A tunnel that dies later leaves a link that leads nowhere: the
		// exposure closes with it, and says why. (Closing the exposure
		// stops the tunnel, which ends this too.)
		go func() {
			<-x.tunnel.exited
			m.close(context.Background(), x.id, "the tunnel program exited")
		}()
	}

	link := x.url + "?t=" + tok
	qrPayload := link
	if x.tls {
		// The fragment never reaches a server; a reader of the code can
		// compare it with the certificate the page presents.
		qrPayload += "#sha256=" + strings.ReplaceAll(x.fingerprint, ":", "")
	}
	out := Opened{Info: x.info(), Link: link}
	if out.QRSVG, err = QRSVG(qrPayload); err == nil {
		out.QRText, err = QRText(qrPayload)
	}
	if err != nil {
		m.close(ctx, x.id, "failed")
		return Opened{}, err
	}
	m.deps.Emit(ctx, "exposure.opened", "human", "", map[string]any{
		"exposure": x.id, "listen": x.listen, "url": x.url, "tls": x.tls, "fingerprint": x.fingerprint,
		"expires": x.expires, "tunnel": tunnelCommand(x.tunnel),
	})
	return out, nil
}

// Close stops the exposure id ("" stops all) at once: its listener and
// every connection on it, and its tunnel. It returns how many it stopped.
func (m *Manager) Close(ctx context.Context, id, reason string) (int, error) {
	if id != "" {
		if !m.close(ctx, id, reason) {
			return 0, ErrNoSuchExposure
		}
		return 1, nil
	}
	m.mu.Lock()
	ids := make([]string, 0, len(m.open))
	for id := range m.open {
		ids = append(ids, id)
	}
	m.mu.Unlock()
	n := 0
	for _, id := range ids {
		if m.close(ctx, id, reason) {
			n++
		}
	}
	return n, nil
}

func (m *Manager) close(ctx context.Context, id, reason string) bool {
	m.mu.Lock()
	x, ok := m.open[id]
	delete(m.open, id)
	m.mu.Unlock()
	if !ok {
		return false
	}
	x.end()
	x.timer.Stop()
	// Close, not Shutdown: a revoke takes effect on open connections too.
	_ = x.srv.Close()
	if x.tunnel != nil {
		x.tunnel.stop(ctx)
	}
	info := x.info()
	m.deps.Emit(ctx, "exposure.closed", "human", "", map[string]any{
		"exposure": id, "reason": reason, "devices": info.Devices, "decisions": info.Decisions,
	})
	return true
}

// List is the open exposures, oldest first; one past its expiry is not
// listed even before its timer has closed it.
func (m *Manager) List() []Info {
	now := time.Now()
	m.mu.Lock()
	out := make([]Info, 0, len(m.open))
	for _, x := range m.open {
		if x.live(now) {
			out = append(out, x.info())
		}
	}
	m.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Opened.Before(out[j].Opened) })
	return out
}

func tunnelCommand(t *tunnel) []string {
	if t == nil {
		return nil
	}
	return t.info.Command
}

// isLoopback: a loopback literal or localhost.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// urlHostFor is the host a device should use for a listener on host: an
// unspecified address (0.0.0.0, ::) names the machine's first
// non-loopback address.
func urlHostFor(host string) string {
	ip := net.ParseIP(host)
	if host != "" && (ip == nil || !ip.IsUnspecified()) {
		return host
	}
	if hs := hostsFor(host); len(hs) > 0 {
		return hs[0]
	}
	return "127.0.0.1"
}

// hostsFor lists the addresses a listener on an unspecified host is
// reached at (for the certificate); none for a specific host.
func hostsFor(host string) []string {
	ip := net.ParseIP(host)
	if host != "" && (ip == nil || !ip.IsUnspecified()) {
		return nil
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	var out []string
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			out = append(out, n.IP.String())
		}
	}
	return out
}
