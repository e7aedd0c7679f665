package httpgate

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/token"
)

const port = 7465

func newGate(t *testing.T, query bool) (http.Handler, string, string) {
	t.Helper()
	agent, _ := token.New()
	control, _ := token.New()
	set := &token.Set{}
	set.Replace([]token.Entry{
		{ID: "a1", Kind: token.Agent, Name: "default", Hash: token.Hash(agent)},
		{ID: "c1", Kind: token.Control, Name: "control", Hash: token.Hash(control)},
	})
	cfg := &Config{
		Port:           func() int { return port },
		AllowedOrigins: []string{"http://127.0.0.1:7465"},
		Tokens:         set,
		Open:           func(r *http.Request) bool { return r.Method == http.MethodGet && r.URL.Path == "/healthz" },
		QueryToken:     query,
		Logger:         slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := FromContext(r.Context())
		if r.Body != nil {
			if _, err := io.Copy(io.Discard, r.Body); err != nil {
				Error(w, http.StatusRequestEntityTooLarge, "too large")
				return
			}
		}
		io.WriteString(w, "ok:"+string(p.Kind))
	})
	return cfg.Wrap(next), agent, control
}

func TestGateTable(t *testing.T) {
	h, agent, control := newGate(t, false)
	good := "127.0.0.1:7465"
	tests := []struct {
		name   string
		method string
		path   string
		host   string
		hdr    map[string]string
		body   string
		want   int
	}{
		{"healthz needs no token", "GET", "/healthz", good, nil, "", 200},
		{"healthz evil host", "GET", "/healthz", "evil.example:7465", nil, "", 403},
		{"evil host with control token", "GET", "/api/v1/sessions", "evil.example:7465", map[string]string{"Authorization": "Bearer " + control}, "", 403},
		{"rebound name resolving to loopback", "GET", "/api/v1/sessions", "attacker.test:7465", map[string]string{"Authorization": "Bearer " + control}, "", 403},
		{"host without port", "GET", "/api/v1/sessions", "127.0.0.1", map[string]string{"Authorization": "Bearer " + control}, "", 403},
		{"host wrong port", "GET", "/api/v1/sessions", "127.0.0.1:80", map[string]string{"Authorization": "Bearer " + control}, "", 403},
		{"localhost ok", "GET", "/api/v1/sessions", "localhost:7465", map[string]string{"Authorization": "Bearer " + control}, "", 200},
		{"ipv6 loopback ok", "GET", "/api/v1/sessions", "[::1]:7465", map[string]string{"Authorization": "Bearer " + control}, "", 200},
		{"evil origin on GET", "GET", "/api/v1/sessions", good, map[string]string{"Authorization": "Bearer " + control, "Origin": "https://evil.example"}, "", 403},
		{"evil origin on POST", "POST", "/api/v1/kill", good, map[string]string{"Authorization": "Bearer " + control, "Origin": "https://evil.example"}, "{}", 403},
		{"evil origin on mcp", "POST", "/mcp", good, map[string]string{"Authorization": "Bearer " + agent, "Origin": "http://localhost:3000"}, "{}", 403},
		{"null origin", "GET", "/api/v1/sessions", good, map[string]string{"Authorization": "Bearer " + control, "Origin": "null"}, "", 403},
		{"evil origin on healthz", "GET", "/healthz", good, map[string]string{"Origin": "https://evil.example"}, "", 403},
		{"own origin allowed", "GET", "/api/v1/sessions", good, map[string]string{"Authorization": "Bearer " + control, "Origin": "http://127.0.0.1:7465"}, "", 200},
		{"absent origin with token", "GET", "/api/v1/sessions", good, map[string]string{"Authorization": "Bearer " + control}, "", 200},
		{"no token api", "GET", "/api/v1/sessions", good, nil, "", 401},
		{"no token mcp", "POST", "/mcp", good, nil, "{}", 401},
		{"agent token on api", "GET", "/api/v1/sessions", good, map[string]string{"Authorization": "Bearer " + agent}, "", 401},
		{"agent token on kill", "POST", "/api/v1/kill", good, map[string]string{"Authorization": "Bearer " + agent}, "{}", 401},
		{"agent token on approvals", "POST", "/api/v1/approvals/x", good, map[string]string{"Authorization": "Bearer " + agent}, "{}", 401},
		{"control token on mcp", "POST", "/mcp", good, map[string]string{"Authorization": "Bearer " + control}, "{}", 401},
		{"agent token on mcp", "POST", "/mcp", good, map[string]string{"Authorization": "Bearer " + agent}, "{}", 200},
		{"wrong token", "GET", "/api/v1/sessions", good, map[string]string{"Authorization": "Bearer " + strings.Repeat("0", 64)}, "", 401},
		{"basic auth scheme", "GET", "/api/v1/sessions", good, map[string]string{"Authorization": "Basic " + control}, "", 401},
		{"token in query refused", "GET", "/api/v1/sessions?access_token=" + control, good, nil, "", 401},
		{"token in query for mcp refused", "POST", "/mcp?access_token=" + agent, good, nil, "{}", 401},
		{"proxy headers grant nothing", "GET", "/api/v1/sessions", "evil.example:7465", map[string]string{"Authorization": "Bearer " + control, "X-Forwarded-Host": good, "X-Forwarded-For": "127.0.0.1", "Forwarded": "for=127.0.0.1;host=" + good, "Via": "1.1 localhost"}, "", 403},
		{"proxy headers no token", "GET", "/api/v1/sessions", good, map[string]string{"X-Forwarded-For": "127.0.0.1", "X-Real-IP": "127.0.0.1"}, "", 403},
		{"proxy headers refused with a good token", "GET", "/api/v1/sessions", good, map[string]string{"Authorization": "Bearer " + control, "Forwarded": "for=192.0.2.1"}, "", 403},
		{"tunnel headers refused", "POST", "/mcp", good, map[string]string{"Authorization": "Bearer " + agent, "Cf-Connecting-Ip": "192.0.2.1"}, "{}", 403},
		{"via refused", "GET", "/healthz", good, map[string]string{"Via": "1.1 relay.example.test"}, "", 403},
		{"cross-site navigation", "GET", "/api/v1/sessions", good, map[string]string{"Authorization": "Bearer " + control, "Sec-Fetch-Site": "cross-site"}, "", 403},
		{"unknown route no token", "GET", "/admin", good, nil, "", 401},
		{"unknown route with token", "GET", "/admin", good, map[string]string{"Authorization": "Bearer " + control}, "", 404},
		{"oversized body", "POST", "/api/v1/kill", good, map[string]string{"Authorization": "Bearer " + control}, strings.Repeat("x", MaxBodyBytes+1), 413},
		{"preflight from evil origin", "OPTIONS", "/api/v1/kill", good, map[string]string{"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"}, "", 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body io.Reader
			if tt.body != "" {
				body = strings.NewReader(tt.body)
			}
			r := httptest.NewRequest(tt.method, tt.path, body)
			r.Host = tt.host
			for k, v := range tt.hdr {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tt.want {
				t.Fatalf("status = %d, want %d (body %q)", w.Code, tt.want, w.Body.String())
			}
			checkHeaders(t, w.Result().Header, w.Code)
			if strings.Contains(w.Body.String(), control) || strings.Contains(w.Body.String(), agent) {
				t.Fatal("a token leaked into the response body")
			}
		})
	}
}

func checkHeaders(t *testing.T, h http.Header, code int) {
	t.Helper()
	for k := range h {
		if strings.HasPrefix(strings.ToLower(k), "access-control-") {
			t.Errorf("CORS header %s present", k)
		}
	}
	if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("X-Frame-Options") != "DENY" || !strings.HasPrefix(h.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Errorf("security headers missing: %v", h)
	}
	if code == 401 && strings.Contains(h.Get("WWW-Authenticate"), "resource_metadata") {
		t.Errorf("401 carries OAuth metadata: %q", h.Get("WWW-Authenticate"))
	}
}

func TestQueryTokenOnlyWithFlag(t *testing.T) {
	h, agent, control := newGate(t, true)
	for _, c := range []struct {
		path string
		want int
	}{
		{"/mcp?access_token=" + agent, 200},
		{"/mcp?access_token=" + control, 401},
		{"/api/v1/sessions?access_token=" + control, 200},
	} {
		r := httptest.NewRequest("GET", c.path, nil)
		r.Host = "127.0.0.1:7465"
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != c.want {
			t.Errorf("%s: status %d, want %d", c.path[:8], w.Code, c.want)
		}
	}
}

func TestUnixSocketIsControlOnly(t *testing.T) {
	h, _, _ := newGate(t, false)
	ctx := context.WithValue(t.Context(), connKindKey{}, "unix")
	for _, c := range []struct {
		path string
		want int
	}{
		{"/api/v1/sessions", 200},
		{"/mcp", 404},
		{"/admin", 404},
	} {
		r := httptest.NewRequest("GET", c.path, nil).WithContext(ctx)
		r.Host = "gatehouse" // any Host: a browser cannot reach a unix socket
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != c.want {
			t.Errorf("%s over unix: %d, want %d", c.path, w.Code, c.want)
		}
	}
	var uc net.Conn = &net.UnixConn{}
	if v := ConnContext(t.Context(), uc).Value(connKindKey{}); v != "unix" {
		t.Fatal("ConnContext did not tag unix conn")
	}
}

func TestInProcess(t *testing.T) {
	h := InProcess(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := FromContext(r.Context())
		io.WriteString(w, string(p.Kind)+":"+p.Via)
	}))
	for _, c := range []struct {
		path string
		code int
		body string
	}{
		{"/api/v1/sessions", 200, "control:in-process"},
		{"/", 200, "control:in-process"},
		{"/mcp", 404, ""},
	} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", c.path, nil))
		if w.Code != c.code || (c.body != "" && w.Body.String() != c.body) {
			t.Errorf("%s: %d %q", c.path, w.Code, w.Body.String())
		}
		if w.Header().Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s: security headers missing", c.path)
		}
	}
}

// ForwardingHeaders names the relay headers a request carries, and only
// those, without their values.
func TestForwardingHeaders(t *testing.T) {
	for _, c := range []struct {
		name string
		hdr  map[string]string
		want string
	}{
		{"none", map[string]string{"Authorization": "Bearer x", "User-Agent": "curl"}, ""},
		{"standard", map[string]string{"Forwarded": "for=192.0.2.1", "Via": "1.1 a"}, "Forwarded,Via"},
		{"x-forwarded family", map[string]string{"x-forwarded-for": "192.0.2.1", "X-Forwarded-Proto": "https"}, "X-Forwarded-For,X-Forwarded-Proto"},
		{"tunnel services", map[string]string{"Cf-Connecting-Ip": "192.0.2.1", "Ngrok-Skip-Browser-Warning": "1", "X-Real-Ip": "192.0.2.1"}, "Cf-Connecting-Ip,Ngrok-Skip-Browser-Warning,X-Real-Ip"},
	} {
		h := http.Header{}
		for k, v := range c.hdr {
			h.Set(k, v)
		}
		if got := strings.Join(ForwardingHeaders(h), ","); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
