package api

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestParseQuery reads the events query strictly: every bad value is a
// 400 that names the parameter, never a silent default.
func TestParseQuery(t *testing.T) {
	tests := []struct {
		query string
		err   string
		check func(t *testing.T, after, before int64, limit int, newest bool, wait time.Duration)
	}{
		{query: "session=s1&after=5&limit=10&order=desc&wait=7", check: func(t *testing.T, after, _ int64, limit int, newest bool, wait time.Duration) {
			if after != 5 || limit != 10 || !newest || wait != 7*time.Second {
				t.Errorf("after %d limit %d newest %v wait %v", after, limit, newest, wait)
			}
		}},
		{query: "wait=100000", check: func(t *testing.T, _, _ int64, _ int, _ bool, wait time.Duration) {
			if wait != maxWait {
				t.Errorf("wait %v, want it capped at %v", wait, maxWait)
			}
		}},
		{query: "after=-1", err: "after must be"},
		{query: "before=x", err: "before must be"},
		{query: "limit=0", err: "limit must be"},
		{query: "limit=1001", err: "limit must be"},
		{query: "since=yesterday", err: "since must be"},
		{query: "order=sideways", err: "order must be"},
		{query: "wait=-3", err: "wait must be"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			q, wait, err := parseQuery(httptest.NewRequest(http.MethodGet, "/api/v1/events?"+tt.query, nil))
			if tt.err != "" {
				var he *httpError
				if !errors.As(err, &he) || he.code != http.StatusBadRequest || !strings.Contains(he.msg, tt.err) {
					t.Fatalf("err = %v, want a 400 saying %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, q.After, q.Before, q.Limit, q.Newest, wait)
		})
	}
}

// TestDecodeBody: bodies are JSON objects of known fields, sent as JSON;
// an empty body leaves the request's defaults.
func TestDecodeBody(t *testing.T) {
	type body struct {
		Decision string `json:"decision"`
	}
	tests := []struct {
		name, ctype, body string
		code              int
		want              string
	}{
		{name: "ok", ctype: "application/json", body: `{"decision":"allow"}`, want: "allow"},
		{name: "charset", ctype: "application/json; charset=utf-8", body: `{"decision":"deny"}`, want: "deny"},
		{name: "empty keeps default", ctype: "", body: "  ", want: "default"},
		{name: "not json type", ctype: "text/plain", body: `{"decision":"allow"}`, code: http.StatusUnsupportedMediaType},
		{name: "unknown field", ctype: "application/json", body: `{"decision":"allow","scope_typo":"x"}`, code: http.StatusBadRequest},
		{name: "trailing", ctype: "application/json", body: `{"decision":"allow"} {}`, code: http.StatusBadRequest},
		{name: "malformed", ctype: "application/json", body: `{"decision":`, code: http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/api/v1/approvals/x", strings.NewReader(tt.body))
			if tt.ctype != "" {
				r.Header.Set("Content-Type", tt.ctype)
			}
			got := body{Decision: "default"}
			err := decodeBody(r, &got)
			if tt.code != 0 {
				var he *httpError
				if !errors.As(err, &he) || he.code != tt.code {
					t.Fatalf("err = %v, want HTTP %d", err, tt.code)
				}
				return
			}
			if err != nil || got.Decision != tt.want {
				t.Fatalf("decoded %q, err %v; want %q", got.Decision, err, tt.want)
			}
		})
	}
}
