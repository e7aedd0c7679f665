package window

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

func TestParsePageReport(t *testing.T) {
	var data []any
	if err := json.Unmarshal([]byte(`[{"title":"(2) Gatehouse","app":true,"cards":2,"conn":"live","visibility":"visible"}]`), &data); err != nil {
		t.Fatal(err)
	}
	r, ok := parsePageReport(data)
	if !ok || r != (PageReport{Title: "(2) Gatehouse", App: true, Cards: 2, Conn: "live", Visible: true}) {
		t.Fatalf("%+v %v", r, ok)
	}
	if _, ok := parsePageReport(nil); ok {
		t.Fatal("empty data parsed")
	}
	if _, ok := parsePageReport([]any{"x"}); ok {
		t.Fatal("string parsed")
	}
	r, _ = parsePageReport([]any{map[string]any{"cards": -3.0, "visibility": "hidden"}})
	if r.Cards != 0 || r.Visible {
		t.Fatalf("%+v", r)
	}
}

func TestWindowTitle(t *testing.T) {
	for in, want := range map[string]string{
		"Gatehouse":                            "Gatehouse",
		"(3) Gatehouse":                        "(3) Gatehouse",
		"":                                     "Gatehouse",
		"Login":                                "Gatehouse",
		"Gatehouse\x1b[31m":                    "Gatehouse",
		strings.Repeat("x", 200) + "Gatehouse": "Gatehouse",
	} {
		if got := windowTitle(in); got != want {
			t.Errorf("windowTitle(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestQuitQuestion(t *testing.T) {
	for n, want := range map[int]string{
		1:  "1 call is waiting for you; quitting denies it.",
		3:  "3 calls are waiting for you; quitting denies them.",
		12: "12 calls are waiting for you; quitting denies them.",
	} {
		if _, text, _ := quitQuestion(n); text != want {
			t.Errorf("quitQuestion(%d) = %q, want %q", n, text, want)
		}
	}
}

func TestProtocol(t *testing.T) {
	for _, c := range []struct {
		line string
		ok   bool
	}{
		{`{"cmd":"show"}`, true},
		{`{"cmd":"hide"}`, true},
		{`{"cmd":"exit"}`, true},
		{`{"cmd":"confirm-quit","waiting":2}`, true},
		{`{"cmd":"confirm-quit"}`, false},
		{`{"cmd":"approve"}`, false},
		{`{"cmd":""}`, false},
		{`not json`, false},
	} {
		if _, err := ParseCommand([]byte(c.line)); (err == nil) != c.ok {
			t.Errorf("ParseCommand(%s): err %v, want ok=%v", c.line, err, c.ok)
		}
	}
	for _, e := range []Event{{Ev: EvVisible, Visible: true, Ready: true}, {Ev: EvQuit}, {Ev: EvQuitAnswer, Quit: true}} {
		line := Line(e)
		if !bytes.HasSuffix(line, []byte("\n")) || bytes.Count(line, []byte("\n")) != 1 {
			t.Fatalf("Line(%+v) = %q: not one line", e, line)
		}
		got, err := ParseEvent(bytes.TrimSpace(line))
		if err != nil || got != e {
			t.Errorf("round trip %+v: %+v %v", e, got, err)
		}
	}
	if _, err := ParseEvent([]byte(`{"ev":"allow"}`)); err == nil {
		t.Error("an unknown event parsed")
	}
}

// noFlush is a ResponseWriter like Wails' own: no Flush.
type noFlush struct {
	h    http.Header
	mu   sync.Mutex
	code int
	body bytes.Buffer
}

func (w *noFlush) Header() http.Header { return w.h }
func (w *noFlush) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.body.Write(p)
}
func (w *noFlush) WriteHeader(c int) { w.code = c }
func (w *noFlush) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.body.String()
}

// TestProxy: the window's requests reach the control socket without the
// browser's origin headers, a stream streams through a writer with no
// Flush, and it ends when the window does.
func TestProxy(t *testing.T) {
	dir, err := os.MkdirTemp("", "win-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "control.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	ended := make(chan struct{})
	seen := make(chan http.Header, 2)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- r.Header.Clone()
		if r.URL.Path != "/api/v1/events/stream" {
			io.WriteString(w, "ok "+r.URL.Path)
			return
		}
		io.WriteString(w, "data: 1\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		close(ended)
	})}
	go srv.Serve(l)
	defer srv.Close()

	appCtx, stop := context.WithCancel(t.Context())
	h := Proxy(appCtx, sock, slog.New(slog.NewTextHandler(io.Discard, nil)))

	req := httptest.NewRequest("GET", "/api/v1/status", nil)
	for k, v := range map[string]string{"Origin": "wails://wails", "Referer": "wails://wails/", "Sec-Fetch-Site": "cross-site", "Accept": "application/json"} {
		req.Header.Set(k, v)
	}
	w := &noFlush{h: http.Header{}}
	h.ServeHTTP(w, req)
	if w.String() != "ok /api/v1/status" {
		t.Fatalf("body %q", w.String())
	}
	hdr := <-seen
	for _, k := range []string{"Origin", "Referer", "Sec-Fetch-Site"} {
		if v := hdr.Get(k); v != "" {
			t.Errorf("%s reached the daemon: %q", k, v)
		}
	}
	if hdr.Get("Accept") != "application/json" {
		t.Errorf("Accept lost: %v", hdr)
	}

	sw := &noFlush{h: http.Header{}}
	go h.ServeHTTP(sw, httptest.NewRequest("GET", "/api/v1/events/stream", nil))
	<-seen
	waitfor.For(t, 3*time.Second, "the stream's first event to come through before the stream ends", func() bool { return sw.String() == "data: 1\n\n" })
	select {
	case <-ended:
		t.Fatal("the stream ended before the window did")
	default:
	}
	stop()
	select {
	case <-ended:
	case <-time.After(3 * time.Second):
		t.Fatal("the stream did not end with the window")
	}

	// The daemon gone: a plain error, not a hang.
	srv.Close()
	ew := &noFlush{h: http.Header{}}
	Proxy(t.Context(), filepath.Join(dir, "missing.sock"), slog.New(slog.NewTextHandler(io.Discard, nil))).ServeHTTP(ew, httptest.NewRequest("GET", "/api/v1/status", nil))
	if ew.code != http.StatusBadGateway || !strings.Contains(ew.String(), "does not answer") {
		t.Fatalf("no daemon: %d %q", ew.code, ew.String())
	}
}
