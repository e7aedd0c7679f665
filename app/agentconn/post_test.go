package agentconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestPost: the helper's own HTTP/1.1 presents the token and says what it
// sends; it decodes an answer whatever its status, in any of the ways a
// server frames a body, and tells a garbled answer from none at all.
func TestPost(t *testing.T) {
	big := strings.Repeat("x", 64<<10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/garbled":
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprint(w, "<html>")
			return
		case "/chunked":
			// Larger than net/http buffers before it chunks.
			json.NewEncoder(w).Encode(map[string]string{"auth": big})
			return
		}
		// Errors come in the answer's own shape, whatever the status.
		w.WriteHeader(http.StatusForbidden)
		json.NewEncoder(w).Encode(map[string]string{"auth": r.Header.Get("Authorization"), "type": r.Header.Get("Content-Type")})
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")

	var got map[string]string
	if err := post(t.Context(), addr, "tok", "/hook", map[string]string{}, &got); err != nil || got["auth"] != "Bearer tok" || got["type"] != "application/json" {
		t.Errorf("post: %v %v", err, got)
	}
	if err := post(t.Context(), addr, "tok", "/chunked", map[string]string{}, &got); err != nil || got["auth"] != big {
		t.Errorf("chunked answer: %v (%d bytes)", err, len(got["auth"]))
	}
	var pe *postError
	if err := post(t.Context(), addr, "tok", "/garbled", map[string]string{}, &got); !errors.As(err, &pe) || pe.status != "502 Bad Gateway" || pe.refused {
		t.Errorf("garbled answer: %v", err)
	}
	srv.Close()
	if err := post(t.Context(), addr, "tok", "/hook", map[string]string{}, &got); !errors.As(err, &pe) || pe.status != "" || pe.refused || pe.addr != addr {
		t.Errorf("no answer: %v", err)
	}
}

// TestPostCancelled: a request the caller gives up on (the hook's timeout,
// the agent's interrupt) returns at once, saying so, and the daemon sees
// the connection go.
func TestPostCancelled(t *testing.T) {
	gone := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // as the daemon decodes it
		<-r.Context().Done()
		close(gone)
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	var got map[string]string
	err := post(ctx, strings.TrimPrefix(srv.URL, "http://"), "tok", "/exec", map[string]string{}, &got)
	var pe *postError
	if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &pe) || pe.status != "" {
		t.Fatalf("post = %v, want the deadline", err)
	}
	select {
	case <-gone:
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not see the request go")
	}
}

// TestPostLines: a streamed answer is handed over line by line as the
// server sends it, not when it ends; a whole answer still decodes.
func TestPostLines(t *testing.T) {
	next := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/whole" {
			json.NewEncoder(w).Encode(map[string]string{"whole": "yes"})
			return
		}
		w.Header().Set("Content-Type", "application/x-lines")
		fmt.Fprintln(w, `{"n":"1"}`)
		w.(http.Flusher).Flush()
		<-next // only once the client has the first line
		fmt.Fprintln(w, `{"n":"2"}`)
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	c := &Conn{addr: addr, token: "tok"}
	var seen []string
	each := func(line []byte) error {
		var v map[string]string
		if err := json.Unmarshal(line, &v); err != nil {
			return err
		}
		seen = append(seen, v["n"])
		if v["n"] == "1" {
			close(next)
		}
		return nil
	}
	var whole map[string]string
	if err := c.PostLines(t.Context(), "/lines", map[string]string{}, "application/x-lines", each, &whole); err != nil || strings.Join(seen, ",") != "1,2" || whole != nil {
		t.Fatalf("lines: %v %v %v", err, seen, whole)
	}
	if err := c.PostLines(t.Context(), "/whole", map[string]string{}, "application/x-lines", each, &whole); err != nil || whole["whole"] != "yes" {
		t.Fatalf("whole answer: %v %v", err, whole)
	}
}
