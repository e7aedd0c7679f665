package httpgate

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestTransportSendsTheToken(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = r.Header.Get("Authorization") }))
	defer srv.Close()
	req, err := http.NewRequestWithContext(t.Context(), "GET", srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Transport: BearerTransport("tok", nil)}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got != "Bearer tok" || req.Header.Get("Authorization") != "" {
		t.Fatalf("server saw %q; the caller's request has %q", got, req.Header.Get("Authorization"))
	}
}
