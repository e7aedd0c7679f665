package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gatehouse-dev/gatehouse/backend/httpgate"
)

// serveSocket answers h on DIR/control.sock, as the daemon does.
func serveSocket(t *testing.T, h http.Handler) string {
	dir := t.TempDir()
	l, err := net.Listen("unix", Socket(dir))
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return dir
}

func TestClientCalls(t *testing.T) {
	dir := serveSocket(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v1/echo":
			var in map[string]string
			json.NewDecoder(r.Body).Decode(&in)
			json.NewEncoder(w).Encode(map[string]string{"method": r.Method, "type": r.Header.Get("Content-Type"), "q": r.URL.Query().Get("q"), "in": in["x"]})
		case "/api/v1/refuse":
			w.WriteHeader(http.StatusConflict)
			fmt.Fprint(w, `{"error":"no, not now"}`)
		case "/api/v1/stream":
			fmt.Fprint(w, ": hello\n\nevent: audit\nid: 7\ndata: {\"a\":\ndata: 1}\n\n")
		}
	}))
	c := New(dir)
	ctx := t.Context()

	var got map[string]string
	if err := c.Get(ctx, "/api/v1/echo", url.Values{"q": {"v"}}, &got); err != nil || got["method"] != "GET" || got["q"] != "v" || got["type"] != "" {
		t.Errorf("get: %v %v", err, got)
	}
	if err := c.Post(ctx, "/api/v1/echo", map[string]string{"x": "y"}, &got); err != nil || got["method"] != "POST" || got["in"] != "y" || got["type"] != "application/json" {
		t.Errorf("post: %v %v", err, got)
	}
	var ae *APIError
	if err := c.Post(ctx, "/api/v1/refuse", nil, nil); !errors.As(err, &ae) || ae.Status != http.StatusConflict || err.Error() != "no, not now" {
		t.Errorf("refusal: %v", err)
	}
	var events []string
	err := c.Stream(ctx, "/api/v1/stream", nil, func(event, id string, data []byte) error {
		events = append(events, event+" "+id+" "+string(data))
		return nil
	})
	if err != nil || len(events) != 1 || events[0] != "audit 7 {\"a\":\n1}" {
		t.Errorf("stream: %v %q", err, events)
	}
}

func TestClientWithoutDaemon(t *testing.T) {
	err := New(t.TempDir()).Get(t.Context(), "/api/v1/status", nil, nil)
	if !errors.Is(err, ErrNoDaemon) || !strings.Contains(err.Error(), "control.sock") {
		t.Fatalf("got %v, want ErrNoDaemon naming the socket", err)
	}
	// A data dir that is a file holds no daemon either.
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	err = New(file).Get(t.Context(), "/api/v1/status", nil, nil)
	if !errors.Is(err, ErrNoDaemon) || !strings.Contains(err.Error(), file+" is not a directory") || strings.Contains(err.Error(), "dial") {
		t.Fatalf("got %v, want ErrNoDaemon saying %s is not a directory", err, file)
	}
}

// One connection serves request after request: `gatehouse run` ends its
// run on the connection it opened the run with, answered as the daemon
// answers (with a length, flushed by its middleware).
func TestClientReusesItsConnection(t *testing.T) {
	dir := t.TempDir()
	l, err := net.Listen("unix", Socket(dir))
	if err != nil {
		t.Fatal(err)
	}
	var opened atomic.Int32
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			httpgate.JSON(w, http.StatusOK, map[string]bool{"ok": true})
			_ = http.NewResponseController(w).Flush()
		}),
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				opened.Add(1)
			}
		},
	}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	c := New(dir)
	for range 3 {
		var got map[string]bool
		if err := c.Post(t.Context(), "/api/v1/runs", map[string]string{}, &got); err != nil || !got["ok"] {
			t.Fatalf("post: %v %v", err, got)
		}
	}
	if n := opened.Load(); n != 1 {
		t.Fatalf("%d connections for three requests, want one", n)
	}
}
