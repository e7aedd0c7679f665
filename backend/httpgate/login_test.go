package httpgate

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/token"
)

// A login link's code opens the login route and nothing else; other
// tokens do not open the login route; a used code opens nothing.
func TestLoginCodeOpensOnlyTheLoginRoute(t *testing.T) {
	agent, _ := token.New()
	control, _ := token.New()
	code, _ := token.New()
	set := &token.Set{}
	set.Replace([]token.Entry{{ID: "a1", Kind: token.Agent, Hash: token.Hash(agent)}, {ID: "c1", Kind: token.Control, Hash: token.Hash(control)}})
	logins := &token.OneTime{}
	id := logins.Add(code, time.Now().Add(time.Hour))
	cfg := &Config{Port: func() int { return port }, Tokens: set, Logins: logins, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	h := cfg.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := FromContext(r.Context())
		io.WriteString(w, string(p.Kind)+":"+p.TokenID)
	}))
	do := func(method, path, tok string) (int, string) {
		req := httptest.NewRequest(method, "http://127.0.0.1:7465"+path, nil)
		req.Host = "127.0.0.1:7465"
		req.Header.Set("Authorization", "Bearer "+tok)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code, rec.Body.String()
	}
	tests := []struct {
		name, method, path, tok string
		want                    int
	}{
		{"code on the login route", "POST", LoginPath, code, 200},
		{"code on the control API", "GET", "/api/v1/status", code, 401},
		{"code on kill", "POST", "/api/v1/kill", code, 401},
		{"code on mcp", "POST", "/mcp", code, 401},
		{"control token on the login route", "POST", LoginPath, control, 401},
		{"agent token on the login route", "POST", LoginPath, agent, 401},
	}
	for _, tt := range tests {
		if got, body := do(tt.method, tt.path, tt.tok); got != tt.want {
			t.Errorf("%s: %d %s, want %d", tt.name, got, body, tt.want)
		}
	}
	if _, body := do("POST", LoginPath, code); body != "login:"+id {
		t.Fatalf("principal = %q, want the code's id", body)
	}
	logins.Take(id)
	if got, _ := do("POST", LoginPath, code); got != 401 {
		t.Fatalf("a used code on the login route: %d, want 401", got)
	}
}
