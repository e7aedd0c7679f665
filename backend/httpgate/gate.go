// Package gate is the one middleware in front of every route. It answers
// "who may ask": Host must be a loopback literal with our port (DNS
// rebinding), a present Origin must be allowlisted (browser drive-by), and a
// bearer token of the right capability must be presented. Nothing else, in
// particular no proxy header, grants anything.
package httpgate

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/token"
)

// MaxBodyBytes caps every request body.
const MaxBodyBytes = 10 << 20

// Principal is who a request was admitted as.
type Principal struct {
	Kind    token.Kind
	TokenID string
	Name    string // client name bound to the token
	Via     string // "tcp", "unix" or "run"
	// Run is the confined run (`gatehouse run`) whose own listener the
	// request came through; its calls all belong to that run's session.
	Run string
}

type principalKey struct{}
type connKindKey struct{}
type runKey struct{}

// FromContext returns the admitted principal of a request.
func FromContext(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}

// ConnContext tags requests that arrived on the unix control socket, whose
// peer uid the listener already checked.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	if _, ok := c.(*net.UnixConn); ok {
		return context.WithValue(ctx, connKindKey{}, "unix")
	}
	return ctx
}

// ConfinedRunHeader names the confined run a request came from. Only the
// gate sets it, on requests that arrived on that run's own listener; it
// is removed from every other request.
const ConfinedRunHeader = "X-Gatehouse-Confined-Run"

// RunConnContext tags requests that arrived on a confined run's own
// listener as that run's agent: the listener is reachable only from
// inside the run's sandbox, so the connection is the capability, and it
// opens the agent routes and nothing else.
// tok is the run's own agent token, which the gate presents for it so the
// agent routes see one token whichever client inside the run asked.
func RunConnContext(p Principal, tok string) func(ctx context.Context, c net.Conn) context.Context {
	p.Kind, p.Via = token.Agent, "run"
	r := confinedRun{p: p, token: tok}
	return func(ctx context.Context, _ net.Conn) context.Context {
		return context.WithValue(context.WithValue(ctx, connKindKey{}, "run"), runKey{}, r)
	}
}

// confinedRun is what a run's listener tags its connections with.
type confinedRun struct {
	p     Principal
	token string
}

// Config is what the gate needs to decide.
type Config struct {
	// Port returns the bound TCP port; Host must name it.
	Port func() int
	// PublicHosts are extra Host names accepted with --public.
	PublicHosts []string
	// AllowedOrigins are exact origins (scheme://host[:port]) allowed to send
	// requests; the daemon's own origin is added by the caller.
	AllowedOrigins []string
	Tokens         *token.Set
	// Logins are login links' one-time codes, good for LoginPath only.
	Logins *token.OneTime
	// Open reports routes that need no token (healthz, static UI assets).
	Open func(r *http.Request) bool
	// QueryToken accepts ?access_token= for conformance tooling that cannot
	// set headers. Off unless the test-only flag turns it on.
	QueryToken bool
	Logger     *slog.Logger
	// Suspect, when set, hears of every request refused for carrying
	// forwarding headers (their names only).
	Suspect func(r *http.Request, headers []string)
}

// LoginPath trades a login link's code for a browser's control token.
const LoginPath = "/api/v1/login"

// Family is the capability a path needs.
func Family(path string) (token.Kind, bool) {
	switch {
	case path == LoginPath:
		// A login link opens this route and nothing else, so a link that
		// leaks after its one use opens nothing.
		return token.Login, true
	case path == "/mcp" || strings.HasPrefix(path, "/mcp/"):
		return token.Agent, true
	case strings.HasPrefix(path, "/api/v1/") || path == "/api/v1":
		return token.Control, true
	}
	return "", false
}

// Wrap puts the gate in front of next.
func (c *Config) Wrap(next http.Handler) http.Handler {
	origins := make(map[string]bool, len(c.AllowedOrigins))
	for _, o := range c.AllowedOrigins {
		origins[strings.ToLower(strings.TrimRight(o, "/"))] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		setSecurityHeaders(sw.Header())
		p, code, why := c.admit(r, origins)
		if code != 0 {
			Error(sw, code, why)
		} else {
			r.Body = http.MaxBytesReader(sw, r.Body, MaxBodyBytes)
			if r.ContentLength > MaxBodyBytes {
				Error(sw, http.StatusRequestEntityTooLarge, "request body is larger than 10 MiB")
			} else {
				next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), principalKey{}, p)))
			}
		}
		// Only the path: a query may carry a token when the test-only flag is on.
		c.Logger.Debug("http", "method", r.Method, "path", r.URL.Path, "status", sw.status, "via", p.Via, "dur", time.Since(start))
		if code != 0 {
			c.Logger.Info("request refused", "method", r.Method, "path", r.URL.Path, "status", code, "reason", why)
		}
	})
}

// admit returns the principal, or an HTTP status and a reason to refuse.
func (c *Config) admit(r *http.Request, origins map[string]bool) (Principal, int, string) {
	// Only a run's own listener may name a run.
	r.Header.Del(ConfinedRunHeader)
	via := "tcp"
	switch v, _ := r.Context().Value(connKindKey{}).(string); v {
	case "unix", "run":
		via = v
	}
	if via == "tcp" {
		// Before the Host check, so a relayed request is always seen
		// for what it is, whatever Host it names.
		if names := ForwardingHeaders(r.Header); len(names) > 0 {
			if c.Suspect != nil {
				c.Suspect(r, names)
			}
			return Principal{Via: via}, http.StatusForbidden, "Gatehouse refuses requests relayed by a proxy or tunnel; to decide cards from another device, run gatehouse public start"
		}
	}
	if via == "tcp" && !c.hostOK(r.Host) {
		return Principal{Via: via}, http.StatusForbidden, "Host header must be 127.0.0.1, localhost or [::1] with the daemon's port"
	}
	if o := r.Header.Get("Origin"); o != "" && !origins[strings.ToLower(strings.TrimRight(o, "/"))] {
		return Principal{Via: via}, http.StatusForbidden, "requests from this web origin are not allowed"
	}
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" && r.Header.Get("Origin") == "" {
		// A browser navigation from another site; never ours.
		return Principal{Via: via}, http.StatusForbidden, "cross-site requests are not allowed"
	}
	if c.Open != nil && c.Open(r) {
		return Principal{Via: via}, 0, ""
	}
	want, known := Family(r.URL.Path)
	if via == "run" {
		// The run's listener: the agent's routes only, as the run.
		if !known || want != token.Agent {
			return Principal{Via: via}, http.StatusNotFound, "a confined run reaches only the agent routes"
		}
		cr, _ := r.Context().Value(runKey{}).(confinedRun)
		if cr.p.Run == "" {
			return Principal{Via: via}, http.StatusForbidden, "this listener belongs to no run"
		}
		r.Header.Set(ConfinedRunHeader, cr.p.Run)
		r.Header.Set("Authorization", "Bearer "+cr.token)
		return cr.p, 0, ""
	}
	if via == "unix" {
		// The listener checked the peer's uid; the socket is the control
		// capability and opens nothing else.
		if !known || want != token.Control {
			return Principal{Via: via}, http.StatusNotFound, "the control socket serves only /api/v1"
		}
		return Principal{Kind: token.Control, Name: "local", Via: via}, 0, ""
	}
	tok := bearer(r)
	if tok == "" && c.QueryToken {
		tok = r.URL.Query().Get("access_token")
	}
	if tok == "" {
		return Principal{Via: via}, http.StatusUnauthorized, "missing bearer token"
	}
	if !known {
		// Any valid token may learn that a route does not exist.
		if _, ok := c.Tokens.Match(tok, token.Control); ok {
			return Principal{Via: via}, http.StatusNotFound, "no such route"
		}
		if _, ok := c.Tokens.Match(tok, token.Agent); ok {
			return Principal{Via: via}, http.StatusNotFound, "no such route"
		}
		return Principal{Via: via}, http.StatusUnauthorized, "invalid bearer token"
	}
	if want == token.Login {
		id, ok := c.Logins.Match(tok)
		if !ok {
			return Principal{Via: via}, http.StatusUnauthorized, "this login link was already used or has expired; run `gatehouse open` for a new one"
		}
		return Principal{Kind: token.Login, TokenID: id, Via: via}, 0, ""
	}
	e, ok := c.Tokens.Match(tok, want)
	if !ok {
		return Principal{Via: via}, http.StatusUnauthorized, "invalid bearer token for this route"
	}
	return Principal{Kind: e.Kind, TokenID: e.ID, Name: e.Name, Via: via}, 0, ""
}

func bearer(r *http.Request) string {
	h := r.Header.Get("Authorization")
	const prefix = "bearer "
	if len(h) <= len(prefix) || !strings.EqualFold(h[:len(prefix)], prefix) {
		return ""
	}
	return strings.TrimSpace(h[len(prefix):])
}

func (c *Config) hostOK(host string) bool {
	h, port, err := net.SplitHostPort(host)
	if err != nil || port != strconv.Itoa(c.Port()) {
		return false
	}
	switch strings.ToLower(h) {
	case "127.0.0.1", "localhost", "::1":
		return true
	}
	for _, p := range c.PublicHosts {
		if strings.EqualFold(h, p) {
			return true
		}
	}
	return false
}

func setSecurityHeaders(h http.Header) {
	SecurityHeaders(h, "default-src 'none'; frame-ancestors 'none'")
}

// SecurityHeaders are what every answer of Gatehouse's listeners carries:
// csp as its Content-Security-Policy; never framed, sniffed, cached or
// read by another origin, and no Referer (an address may carry a token).
func SecurityHeaders(h http.Header, csp string) {
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
}

// Error writes a JSON error body: {"error": "..."}.
func Error(w http.ResponseWriter, code int, msg string) {
	if code == http.StatusUnauthorized {
		// A plain challenge: no resource_metadata, so clients do not start
		// an OAuth dance against a local daemon.
		w.Header().Set("WWW-Authenticate", `Bearer realm="gatehouse"`)
	}
	JSON(w, code, map[string]string{"error": msg})
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// Flush keeps SSE working through the wrapper.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the real writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// InProcess serves requests that never crossed a network: the desktop
// window's own asset server calls the daemon in the same process. They act
// with the control capability; the security headers and body cap still
// apply, and /mcp is not offered (agents always come through the gate).
func InProcess(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setSecurityHeaders(w.Header())
		if k, ok := Family(r.URL.Path); ok && k == token.Agent {
			Error(w, http.StatusNotFound, "agents connect to /mcp over the network, not through the desktop window")
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
		p := Principal{Kind: token.Control, Name: "desktop", Via: "in-process"}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), principalKey{}, p)))
	})
}
