package exposure

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/approval"
	"github.com/gatehouse-dev/gatehouse/sandbox/waitfor"
)

// fakeCards is a broker with one card; a decided card is settled.
type fakeCards struct {
	mu      sync.Mutex
	pending map[string]approval.Request
	settled map[string]approval.Decision
	// local: cards the computer decided (the broker's race rule).
	local map[string]bool
}

func newFakeCards(reqs ...approval.Request) *fakeCards {
	f := &fakeCards{pending: map[string]approval.Request{}, settled: map[string]approval.Decision{}}
	for _, r := range reqs {
		f.pending[r.ID] = r
	}
	return f
}

func (f *fakeCards) Pending() []approval.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []approval.Request
	for _, r := range f.pending {
		out = append(out, r)
	}
	return out
}

func (f *fakeCards) Lookup(id string) (approval.Request, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, ok := f.pending[id]
	return r, ok
}

func (f *fakeCards) Decide(_ context.Context, id string, d approval.Decision) (approval.Request, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.local[id] {
		return approval.Request{}, approval.ErrDecidedLocally
	}
	if _, ok := f.settled[id]; ok {
		return approval.Request{}, approval.ErrSettled
	}
	r, ok := f.pending[id]
	if !ok {
		return approval.Request{}, approval.ErrNotFound
	}
	delete(f.pending, id)
	f.settled[id] = d
	return r, nil
}

type recorded struct {
	mu    sync.Mutex
	kinds []string
	rows  []map[string]any
}

func (r *recorded) emit(_ context.Context, kind, _, _ string, payload any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.kinds = append(r.kinds, kind)
	m, _ := payload.(map[string]any)
	r.rows = append(r.rows, m)
}

func open(t *testing.T, cards Cards, rec *recorded, d time.Duration) (*Manager, Opened) {
	t.Helper()
	m := New(Deps{Cards: cards, Emit: rec.emit, Logger: slog.New(slog.DiscardHandler)})
	o, err := m.Open(t.Context(), Options{For: d})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(context.Background(), "", "test over") })
	return m, o
}

func device(t *testing.T) *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, Timeout: 5 * time.Second}
}

func do(t *testing.T, c *http.Client, method, u, body string, hdr map[string]string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest(method, u, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("User-Agent", "phone.example.test/1")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

func TestParseFor(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"", time.Hour, ""},
		{"30m", 30 * time.Minute, ""},
		{"24h", 24 * time.Hour, ""},
		{"0", 0, "longer than 0"},
		{"-5m", 0, "longer than 0"},
		{"100h", 0, "at most 24h"},
		{"soon", 0, "not a duration"},
	} {
		got, err := ParseFor(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseFor(%q) = %v, %v; want an error saying %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParseFor(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

// The token opens the page once, for one device, through a cookie scoped
// to the exposure; replays, truncations and guesses are refused, and
// guessing is rate-limited.
func TestTokenTradedOnceForACookie(t *testing.T) {
	rec := &recorded{}
	_, o := open(t, newFakeCards(), rec, time.Hour)
	phone := device(t)
	noRedirect := device(t)
	noRedirect.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	code, h, _ := do(t, noRedirect, "GET", o.Link, "", nil)
	if code != http.StatusSeeOther {
		t.Fatalf("trade: %d", code)
	}
	ck := h.Get("Set-Cookie")
	for _, want := range []string{"HttpOnly", "SameSite=Strict", "Path=/e/" + o.ID + "/"} {
		if !strings.Contains(ck, want) {
			t.Errorf("cookie %q lacks %s", ck, want)
		}
	}
	if strings.Contains(ck, strings.SplitN(o.Link, "?t=", 2)[1]) {
		t.Fatal("the cookie carries the token itself")
	}
	if code, _, _ := do(t, noRedirect, "GET", o.URL+"cards", "", nil); code != 200 {
		t.Fatalf("cards with the traded cookie: %d", code)
	}
	tok := strings.SplitN(o.Link, "?t=", 2)[1]
	for _, c := range []struct{ name, link string }{
		{"replayed", o.Link},
		{"truncated", o.URL + "?t=" + tok[:len(tok)-1]},
		{"no cookie", o.URL},
	} {
		if code, _, body := do(t, phone, "GET", c.link, "", nil); code != http.StatusUnauthorized {
			t.Errorf("%s: %d %s", c.name, code, body)
		}
	}
	for range 10 {
		do(t, phone, "GET", o.URL+"?t=0000", "", nil)
	}
	if code, _, _ := do(t, noRedirect, "GET", o.URL+"cards", "", nil); code != http.StatusTooManyRequests {
		t.Fatalf("after many wrong tokens: %d, want 429", code)
	}
	for _, r := range rec.rows {
		b, _ := json.Marshal(r)
		if strings.Contains(string(b), tok) {
			t.Fatalf("an audit row carries the token: %s", b)
		}
	}
}

// Only the page and its API: every other path is refused, pages refuse
// framing, and another origin's requests are refused.
func TestServesOnlyThePage(t *testing.T) {
	_, o := open(t, newFakeCards(), &recorded{}, time.Hour)
	phone := device(t)
	do(t, phone, "GET", o.Link, "", nil)
	u, _ := url.Parse(o.URL)
	root := u.Scheme + "://" + u.Host
	for _, p := range []string{"/mcp", "/api/v1/approvals", "/api/v1/status", "/healthz", "/", "/e/x_other/"} {
		if code, _, _ := do(t, phone, "GET", root+p, "", nil); code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", p, code)
		}
	}
	code, h, _ := do(t, phone, "GET", o.URL, "", nil)
	if code != 200 || h.Get("X-Frame-Options") != "DENY" || !strings.Contains(h.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Fatalf("page: %d %v", code, h)
	}
	if code, _, _ := do(t, phone, "GET", o.URL+"cards", "", map[string]string{"Origin": "https://evil.example.test"}); code != http.StatusForbidden {
		t.Fatalf("foreign origin: %d", code)
	}
	if code, _, _ := do(t, phone, "GET", o.URL+"cards", "", map[string]string{"Origin": root}); code != 200 {
		t.Fatalf("own origin: %d", code)
	}
}

// A decision must carry the hash of the card as shown; a settled card,
// a stale hash or an unknown card decides nothing; the audit gets the
// exposure and the device.
func TestDecisionBoundToTheCard(t *testing.T) {
	card := approval.Request{ID: "a_1", Kind: approval.KindCall, Actor: "claude", Argv: []string{"rm", "-rf", "build"}, Reason: "outside the workspace"}
	other := approval.Request{ID: "a_2", Kind: approval.KindCall, Argv: []string{"true"}}
	atDesk := approval.Request{ID: "a_3", Kind: approval.KindCall, Argv: []string{"make", "deploy"}}
	cards := newFakeCards(card, other, atDesk)
	cards.local = map[string]bool{"a_3": true}
	_, o := open(t, cards, &recorded{}, time.Hour)
	phone := device(t)
	do(t, phone, "GET", o.Link, "", nil)
	var list struct{ Cards []Card }
	_, _, body := do(t, phone, "GET", o.URL+"cards", "", nil)
	json.Unmarshal([]byte(body), &list)
	if len(list.Cards) != 3 {
		t.Fatalf("cards: %s", body)
	}
	h := CardHash(card)
	for _, c := range []struct {
		name, id, body string
		want           int
		says           string
	}{
		{"stale hash", "a_1", `{"decision":"allow","hash":"` + CardHash(other) + `"}`, 410, "not the one you saw"},
		{"no hash", "a_1", `{"decision":"allow"}`, 400, ""},
		{"bad decision", "a_1", `{"decision":"always","hash":"` + h + `"}`, 400, ""},
		{"unknown card", "a_9", `{"decision":"allow","hash":"` + h + `"}`, 404, ""},
		{"good", "a_1", `{"decision":"allow","hash":"` + h + `"}`, 200, ""},
		{"decided already", "a_1", `{"decision":"deny","hash":"` + h + `"}`, 410, ""},
		{"decided on the computer", "a_3", `{"decision":"allow","hash":"` + CardHash(atDesk) + `"}`, 410, "decided on the computer"},
	} {
		if code, _, body := do(t, phone, "POST", o.URL+"cards/"+c.id, c.body, nil); code != c.want || !strings.Contains(body, c.says) {
			t.Errorf("%s: %d %s, want %d saying %q", c.name, code, body, c.want, c.says)
		}
	}
	d := cards.settled["a_1"]
	if !d.Allow || d.Scope != approval.ScopeOnce || d.Exposure != o.ID || d.Device != "phone.example.test/1" {
		t.Fatalf("decision %+v", d)
	}
}

// Stop and expiry take effect at once, open connections included.
func TestStopAndExpiry(t *testing.T) {
	m, o := open(t, newFakeCards(), &recorded{}, time.Hour)
	phone := device(t)
	do(t, phone, "GET", o.Link, "", nil)
	if code, _, _ := do(t, phone, "GET", o.URL+"cards", "", nil); code != 200 {
		t.Fatal("before stop")
	}
	if n, err := m.Close(t.Context(), o.ID, "stopped"); n != 1 || err != nil {
		t.Fatal(n, err)
	}
	if code, _, _ := do(t, phone, "GET", o.URL+"cards", "", nil); code == 200 {
		t.Fatal("served after stop on a kept-alive connection")
	}
	if _, err := m.Close(t.Context(), o.ID, "stopped"); err != ErrNoSuchExposure {
		t.Fatalf("second stop: %v", err)
	}

	m2, o2 := open(t, newFakeCards(), &recorded{}, 300*time.Millisecond)
	phone2 := device(t)
	do(t, phone2, "GET", o2.Link, "", nil)
	waitfor.For(t, 5*time.Second, "the exposure to expire", func() bool { return len(m2.List()) == 0 })
	if code, _, _ := do(t, phone2, "GET", o2.URL+"cards", "", nil); code == 200 {
		t.Fatal("served after expiry")
	}
}

func TestOpenRefusesBadDurations(t *testing.T) {
	m := New(Deps{Cards: newFakeCards(), Emit: (&recorded{}).emit, Logger: slog.New(slog.DiscardHandler)})
	for _, d := range []time.Duration{0, 100 * time.Hour} {
		if _, err := m.Open(t.Context(), Options{For: d}); err == nil {
			t.Errorf("Open for %v succeeded", d)
		}
	}
}

// A tunnel that exits at once opens nothing, even after printing a URL,
// and its last line says why; one that prints a URL lends it to the
// link; one that prints none is kept, with a note.
func TestTunnel(t *testing.T) {
	for _, c := range []struct {
		name string
		argv []string
		// settle is long where the program is meant to exit inside it.
		settle time.Duration
		err    string
		url    string
		note   bool
	}{
		{"exits at once", []string{"sh", "-c", "echo broken; exit 3"}, 0, "exited at once (exit status 3) without carrying the exposure; its last line was: broken", "", false},
		{"exits after a URL", []string{"sh", "-c", "echo 'https://t0.example.test'; echo 'no account' >&2; exit 1"}, time.Minute, "its last line was: no account", "", false},
		{"prints a URL", []string{"sh", "-c", "echo 'your tunnel: https://t1.example.test ready' >&2; exec sleep 30"}, 0, "", "https://t1.example.test", false},
		{"prints none", []string{"sh", "-c", "exec sleep 30"}, 0, "", "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := New(Deps{Cards: newFakeCards(), Emit: (&recorded{}).emit, Logger: slog.New(slog.DiscardHandler), Tunnel: c.argv,
				TunnelWait: 500 * time.Millisecond, TunnelSettle: c.settle})
			o, err := m.Open(t.Context(), Options{For: time.Hour})
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || len(m.List()) != 0 {
					t.Fatalf("err %v, open %d; want an error saying %q", err, len(m.List()), c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close(context.Background(), "", "test over")
			if c.url != "" && !strings.HasPrefix(o.Link, c.url+"/e/"+o.ID+"/?t=") {
				t.Fatalf("link %s", o.Link)
			}
			if c.note != (o.Tunnel.Note != "") {
				t.Fatalf("note %q", o.Tunnel.Note)
			}
		})
	}
}

// A tunnel that dies while its exposure is open closes the exposure, and
// the audit says why.
func TestTunnelExitClosesTheExposure(t *testing.T) {
	quit := t.TempDir() + "/quit"
	rec := &recorded{}
	m := New(Deps{Cards: newFakeCards(), Emit: rec.emit, Logger: slog.New(slog.DiscardHandler), TunnelWait: 5 * time.Second, TunnelSettle: time.Millisecond,
		Tunnel: []string{"sh", "-c", "echo https://t2.example.test; while [ ! -e " + quit + " ]; do sleep 0.05; done"}})
	o, err := m.Open(t.Context(), Options{For: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(context.Background(), "", "test over") })
	if len(m.List()) != 1 {
		t.Fatal("the exposure is not open")
	}
	if err := os.WriteFile(quit, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	waitfor.For(t, 10*time.Second, "the exposure to close with its tunnel", func() bool { return len(m.List()) == 0 })
	// The row is written as the exposure is taken off the list, not
	// necessarily before it.
	closed := func() (bool, string) {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		for i, k := range rec.kinds {
			if k == "exposure.closed" && rec.rows[i]["exposure"] == o.ID && rec.rows[i]["reason"] == "the tunnel program exited" {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%v %v", rec.kinds, rec.rows)
	}
	waitfor.ForState(t, 10*time.Second, "an exposure.closed row saying the tunnel exited", closed)
}

// Off loopback an exposure serves TLS with Gatehouse's own certificate,
// whose fingerprint is the one shown and carried in the link's QR code;
// the token never crosses the network in clear.
func TestNonLoopbackServesTLS(t *testing.T) {
	m := New(Deps{Cards: newFakeCards(), Emit: (&recorded{}).emit, Logger: slog.New(slog.DiscardHandler)})
	o, err := m.Open(t.Context(), Options{For: time.Hour, Listen: "0.0.0.0:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(context.Background(), "", "test over")
	if !o.TLS || !strings.HasPrefix(o.Link, "https://") || len(o.Fingerprint) != 95 {
		t.Fatalf("opened %+v", o.Info)
	}
	_, port, _ := net.SplitHostPort(o.Listen)
	conn, err := tls.Dial("tcp", "127.0.0.1:"+port, &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	der := conn.ConnectionState().PeerCertificates[0].Raw
	conn.Close()
	if Fingerprint(der) != o.Fingerprint {
		t.Fatalf("the certificate served is not the one shown: %s vs %s", Fingerprint(der), o.Fingerprint)
	}
	plain, err := net.Dial("tcp", "127.0.0.1:"+port)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	plain.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(plain, "GET "+strings.TrimPrefix(o.URL, "https://"+strings.SplitN(strings.TrimPrefix(o.URL, "https://"), "/", 2)[0])+" HTTP/1.1\r\nHost: x\r\n\r\n")
	b, _ := io.ReadAll(plain)
	if strings.Contains(string(b), "200 OK") {
		t.Fatalf("plain HTTP was served: %q", b)
	}
}

// Two devices on two exposures decide the same card at once: exactly one
// decision settles it, the other is told 410; a device of one exposure
// is a stranger to the other.
func TestTwoDevicesOneCard(t *testing.T) {
	card := approval.Request{ID: "a_1", Kind: approval.KindCall, Argv: []string{"make", "deploy"}}
	cards := newFakeCards(card)
	m := New(Deps{Cards: cards, Emit: (&recorded{}).emit, Logger: slog.New(slog.DiscardHandler)})
	defer m.Close(context.Background(), "", "test over")
	var links [2]Opened
	var phones [2]*http.Client
	for i := range links {
		o, err := m.Open(t.Context(), Options{For: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		links[i], phones[i] = o, device(t)
		do(t, phones[i], "GET", o.Link, "", nil)
	}
	if code, _, _ := do(t, phones[0], "GET", links[1].URL+"cards", "", nil); code != http.StatusUnauthorized {
		t.Fatalf("a device of one exposure opened the other: %d", code)
	}
	if code, _, _ := do(t, phones[1], "GET", links[1].URL+"?t="+strings.SplitN(links[0].Link, "?t=", 2)[1], "", nil); code != http.StatusUnauthorized {
		t.Fatalf("one exposure's token opened the other: %d", code)
	}
	body := `{"decision":"allow","hash":"` + CardHash(card) + `"}`
	codes := make(chan int, 2)
	for i := range links {
		go func() {
			code, _, _ := do(t, phones[i], "POST", links[i].URL+"cards/a_1", body, nil)
			codes <- code
		}()
	}
	a, b := <-codes, <-codes
	if a+b != 200+410 {
		t.Fatalf("two devices on one card: %d and %d, want one 200 and one 410", a, b)
	}
}
