//go:build integration

package cli_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
)

// opened is what `public start --json` prints.
type opened struct {
	ID          string `json:"id"`
	Listen      string `json:"listen"`
	URL         string `json:"url"`
	Link        string `json:"link"`
	TLS         bool   `json:"tls"`
	Fingerprint string `json:"fingerprint"`
	QRText      string `json:"qr_text"`
	Tunnel      *struct {
		PID  int    `json:"pid"`
		Note string `json:"note"`
	} `json:"tunnel"`
}

// publicStart runs `gatehouse public start --json ARGS…`.
func publicStart(t testing.TB, d *clitest.Daemon, args ...string) opened {
	t.Helper()
	out, errOut, code := d.CLI(t.Context(), append([]string{"public", "start", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("public start: exit %d, stderr %q", code, errOut)
	}
	var o opened
	if err := json.Unmarshal([]byte(out), &o); err != nil || o.Link == "" {
		t.Fatalf("public start printed %q: %v", out, err)
	}
	return o
}

// phone is a device with its own cookies, naming itself as a phone.
type phone struct {
	t testing.TB
	c *http.Client
}

func newPhone(t testing.TB) *phone {
	jar, _ := cookiejar.New(nil)
	return &phone{t: t, c: &http.Client{Jar: jar, Timeout: 10 * time.Second}}
}

func (p *phone) do(method, u, body string, hdr map[string]string) (int, http.Header, string) {
	p.t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		p.t.Fatal(err)
	}
	req.Header.Set("User-Agent", "Phone/1.0 (handset.example.test)")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := p.c.Do(req)
	if err != nil {
		return 0, nil, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

type pageCard struct {
	ID   string   `json:"id"`
	Argv []string `json:"argv"`
	Hash string   `json:"hash"`
}

// cards lists the cards the exposure's page shows.
func (p *phone) cards(base string) []pageCard {
	p.t.Helper()
	code, _, body := p.do("GET", base+"cards", "", nil)
	if code != 200 {
		p.t.Fatalf("cards: %d %s", code, body)
	}
	var out struct{ Cards []pageCard }
	json.Unmarshal([]byte(body), &out)
	return out.Cards
}

func (p *phone) decide(base string, c pageCard, decision string) (int, string) {
	p.t.Helper()
	b, _ := json.Marshal(map[string]string{"decision": decision, "hash": c.Hash})
	code, _, body := p.do("POST", base+"cards/"+c.ID, string(b), nil)
	return code, body
}

// askCard starts, in a new MCP session named client, a run_command call
// that echoes word, and returns its card as the page at base shows it
// and the call's outcome to come.
func (p *phone) askCard(d *clitest.Daemon, base, client, word string) (pageCard, <-chan outcome) {
	p.t.Helper()
	s := d.MCP(p.t.Context(), client)
	done := make(chan outcome, 1)
	go func() {
		done <- callAsync(p.t.Context(), s, "run_command", map[string]any{"argv": []string{"sh", "-c", "echo " + word}})
	}()
	return p.waitCard(base), done
}

// publicDaemon is a daemon in ask mode with config as its config.toml.
func publicDaemon(t *testing.T, config string) *clitest.Daemon {
	t.Helper()
	base := t.TempDir()
	ws := base + "/ws"
	clitest.WriteConfig(t, ws, "config.toml", config)
	return clitest.StartWith(t, base+"/data", ws, "--mode", "ask")
}

// waitCard waits for the page to show a card.
func (p *phone) waitCard(base string) pageCard {
	p.t.Helper()
	var got pageCard
	clitest.WaitFor(p.t, clitest.CardWait, "a card on the exposure's page", func() bool {
		cs := p.cards(base)
		if len(cs) > 0 {
			got = cs[0]
		}
		return len(cs) > 0
	})
	return got
}

func rootOf(u string) string {
	p, _ := url.Parse(u)
	return p.Scheme + "://" + p.Host
}

// An exposure serves the approvals page and its decide API, nothing
// else; the tokens of one listener open nothing on the other; the page
// refuses framing and other origins; a decision made through it resumes
// the agent's call and is audited with the exposure and the device; a
// stale, settled or unknown card is not decided.
func TestPublicExposureDecidesOnlyCards(t *testing.T) {
	d := clitest.StartAsk(t)
	o := publicStart(t, d)
	if !strings.HasPrefix(o.Link, "http://127.0.0.1:") || o.TLS {
		t.Fatalf("a default exposure is on loopback without TLS: %+v", o)
	}
	tok := strings.SplitN(o.Link, "?t=", 2)[1]
	if len(tok) < 32 {
		t.Fatalf("the exposure token has %d hex digits, fewer than 128 bits", len(tok))
	}
	ph := newPhone(t)
	if code, _, body := ph.do("GET", o.Link, "", nil); code != 200 || !strings.Contains(body, "Gatehouse approvals") {
		t.Fatalf("opening the link: %d %s", code, body)
	}
	root := rootOf(o.URL)
	control, agent := d.Token("control"), d.Token("agent")

	// Every other route is refused on the exposure, with or without the
	// main listener's tokens.
	for _, c := range []struct{ method, path, auth string }{
		{"POST", "/mcp", agent}, {"GET", "/mcp", ""}, {"GET", "/api/v1/approvals", control}, {"POST", "/api/v1/kill", control},
		{"GET", "/api/v1/tokens", control}, {"GET", "/api/v1/connect", control}, {"GET", "/healthz", ""}, {"GET", "/", ""},
		{"GET", "/api/v1/exposures", control},
	} {
		hdr := map[string]string{}
		if c.auth != "" {
			hdr["Authorization"] = "Bearer " + c.auth
		}
		if code, _, body := ph.do(c.method, root+c.path, "", hdr); code != 404 {
			t.Errorf("%s %s on the exposure: %d %s, want 404", c.method, c.path, code, body)
		}
	}
	stranger := newPhone(t)
	for name, u := range map[string]string{
		"control token as the link": o.URL + "?t=" + control,
		"agent token as the link":   o.URL + "?t=" + agent,
		"replayed link":             o.Link,
	} {
		if code, _, _ := stranger.do("GET", u, "", nil); code != 401 {
			t.Errorf("%s: %d, want 401", name, code)
		}
	}
	if code, _, _ := stranger.do("GET", o.URL+"cards", "", map[string]string{"Authorization": "Bearer " + control}); code != 401 {
		t.Errorf("the control token opened the exposure's cards: %d", code)
	}
	// The exposure token opens nothing on the main listener.
	for _, path := range []string{"/api/v1/approvals", "/mcp"} {
		resp, _ := d.Request("POST", path, strings.NewReader("{}"), map[string]string{"Authorization": "Bearer " + tok, "Content-Type": "application/json"})
		if resp.StatusCode != 401 {
			t.Errorf("the exposure token on the main listener's %s: %d, want 401", path, resp.StatusCode)
		}
	}

	// Framing and foreign origins.
	code, h, _ := ph.do("GET", o.URL, "", nil)
	if code != 200 || h.Get("X-Frame-Options") != "DENY" || !strings.Contains(h.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Fatalf("page headers: %d %v", code, h)
	}

	// A card decided through the exposure resumes the agent.
	c, done := ph.askCard(d, o.URL, "walkaway", "from-the-phone")
	if strings.Join(c.Argv, " ") != "sh -c echo from-the-phone" {
		t.Fatalf("the page shows %+v", c)
	}
	b, _ := json.Marshal(map[string]string{"decision": "allow", "hash": c.Hash})
	if code, _, body := ph.do("POST", o.URL+"cards/"+c.ID, string(b), map[string]string{"Origin": "https://evil.example.test"}); code != 403 {
		t.Fatalf("a decision from another origin: %d %s", code, body)
	}
	stale := c
	stale.Hash = strings.Repeat("0", 64)
	if code, body := ph.decide(o.URL, stale, "allow"); code != 410 {
		t.Fatalf("a decision on a stale hash: %d %s", code, body)
	}
	if code, body := ph.decide(o.URL, pageCard{ID: "a_0000000000000000", Hash: c.Hash}, "allow"); code != 404 {
		t.Fatalf("a decision on no card: %d %s", code, body)
	}
	if code, body := ph.decide(o.URL, c, "allow"); code != 200 {
		t.Fatalf("decide through the exposure: %d %s", code, body)
	}
	res := <-done
	if res.err != nil || res.res.IsError || !strings.Contains(clitest.Text(t, res.res), "from-the-phone") {
		t.Fatalf("the agent's call after the phone's allow: %+v %v", res.res, res.err)
	}
	var decided map[string]any
	for _, e := range d.Events("kind=approval.decided") {
		if p, _ := e["payload"].(map[string]any); p["approval"] == c.ID {
			decided = p
		}
	}
	if decided["exposure"] != o.ID || decided["device"] != "Phone/1.0 (handset.example.test)" || decided["by"] != "human" {
		t.Fatalf("the decision's audit row: %v", decided)
	}
	if code, body := ph.decide(o.URL, c, "deny"); code != 410 {
		t.Fatalf("deciding the card again: %d %s", code, body)
	}

	// Decided on the desktop first: the local decision wins, and the
	// phone's later one is 410, saying so.
	c2, done := ph.askCard(d, o.URL, "walkaway-again", "second")
	if code := d.Decide(c2.ID, "deny", "once", "decided at the desk"); code != 200 {
		t.Fatalf("local decision: %d", code)
	}
	if code, body := ph.decide(o.URL, c2, "allow"); code != 410 || !strings.Contains(body, "decided on the computer") {
		t.Fatalf("the phone after the desk: %d %s", code, body)
	}
	if r := <-done; r.err != nil || !r.res.IsError {
		t.Fatalf("the desk's deny did not reach the agent: %+v %v", r.res, r.err)
	}
	for _, e := range d.Events("") {
		if b, _ := json.Marshal(e); bytes.Contains(b, []byte(tok)) {
			t.Fatalf("the audit log holds the exposure token: %s", b)
		}
	}
}

// Bad durations are refused with a sentence; stop and expiry end the
// exposure at once, the device's open connection included; a restarted
// daemon comes back with no exposure open.
func TestPublicStopExpiryRestart(t *testing.T) {
	d := clitest.Start(t)
	for _, c := range []struct{ arg, want string }{
		{"0", "longer than 0"}, {"100h", "at most 24h"}, {"soon", "not a duration"},
	} {
		out, errOut, code := d.CLI(t.Context(), "public", "start", "--for", c.arg)
		if code == 0 || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("--for %s: exit %d, stdout %q, stderr %q", c.arg, code, out, errOut)
		}
	}
	resp, body := d.Request("POST", "/api/v1/exposures", strings.NewReader(`{"for":"100h"}`), map[string]string{"Authorization": "Bearer " + d.Token("control"), "Content-Type": "application/json"})
	if resp.StatusCode != 400 || !strings.Contains(body, "at most 24h") {
		t.Fatalf("the API took 100h: %d %s", resp.StatusCode, body)
	}

	o := publicStart(t, d)
	ph := newPhone(t)
	ph.do("GET", o.Link, "", nil)
	ph.cards(o.URL)
	if out, _, _ := d.CLI(t.Context(), "public", "status"); !strings.Contains(out, o.ID) || strings.Contains(out, "?t=") {
		t.Fatalf("status: %q", out)
	}
	if out, errOut, code := d.CLI(t.Context(), "public", "stop"); code != 0 || !strings.Contains(out, "Stopped 1 exposure") {
		t.Fatalf("stop: %d %q %q", code, out, errOut)
	}
	if code, _, _ := ph.do("GET", o.URL+"cards", "", nil); code == 200 {
		t.Fatal("the page still answers after stop")
	}

	short := publicStart(t, d, "--for", "2s")
	ph2 := newPhone(t)
	ph2.do("GET", short.Link, "", nil)
	ph2.cards(short.URL)
	clitest.WaitFor(t, 10*time.Second, "the exposure to expire", func() bool {
		out, _, _ := d.CLI(t.Context(), "public", "status")
		return strings.Contains(out, "No exposure is open")
	})
	if code, _, _ := ph2.do("GET", short.URL+"cards", "", nil); code == 200 {
		t.Fatal("the page still answers after expiry")
	}

	kept := publicStart(t, d)
	d.Stop()
	d.Restart()
	if out, _, _ := d.CLI(t.Context(), "public", "status"); !strings.Contains(out, "No exposure is open") {
		t.Fatalf("status after a restart: %q", out)
	}
	if code, _, _ := newPhone(t).do("GET", kept.Link, "", nil); code == 200 {
		t.Fatal("an exposure came back open after a restart")
	}
}

// freePort is a loopback port nothing listens on now.
func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func needSocat(t *testing.T) string {
	p, err := exec.LookPath("socat")
	if err != nil {
		// make test installs it: a missing one is a broken set-up, said loudly.
		t.Fatalf("socat is not installed; run scripts/deps.sh test (make test does): %v", err)
	}
	return p
}

// A request relayed to the main listener is refused and recorded as
// exposure.suspected (header names, rate-limited rows), and status shows
// it; a passthrough relay (socat) holding a connection to the daemon's
// port is named in status.
func TestPublicFlagsWhatGatehouseDoesNotControl(t *testing.T) {
	d := clitest.Start(t)
	for range 3 {
		resp, _ := d.Request("GET", "/api/v1/sessions", nil, map[string]string{"Authorization": "Bearer " + d.Token("control"), "X-Forwarded-For": "192.0.2.7", "Cf-Connecting-Ip": "192.0.2.7"})
		if resp.StatusCode != 403 {
			t.Fatalf("a relayed request on the main listener: %d", resp.StatusCode)
		}
	}
	ev := d.Events("kind=exposure.suspected")
	if len(ev) != 1 {
		t.Fatalf("%d exposure.suspected rows for 3 relayed requests in a burst, want 1: %v", len(ev), ev)
	}
	p, _ := ev[0]["payload"].(map[string]any)
	// Header names, never their values.
	if b, _ := json.Marshal(p); !strings.Contains(string(b), "X-Forwarded-For") || strings.Contains(string(b), "192.0.2.7") {
		t.Fatalf("the row: %s", b)
	}
	out, _, _ := d.CLI(t.Context(), "public", "status")
	if !strings.Contains(out, "3 requests relayed") || !strings.Contains(out, "Cf-Connecting-Ip, X-Forwarded-For") {
		t.Fatalf("status does not show the relayed requests: %q", out)
	}

	socat := needSocat(t)
	relay := freePort(t)
	_, daemonPort, _ := net.SplitHostPort(d.Addr)
	clitest.Spawn(t, exec.Command(socat, "TCP-LISTEN:"+strconv.Itoa(relay)+",bind=127.0.0.1,fork,reuseaddr", "TCP:127.0.0.1:"+daemonPort), "socat")
	var conn net.Conn
	clitest.WaitFor(t, 10*time.Second, "socat to listen", func() bool {
		c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(relay))
		conn = c
		return err == nil
	})
	defer conn.Close()
	clitest.WaitFor(t, 10*time.Second, "status to name socat", func() bool {
		out, _, _ = d.CLI(t.Context(), "public", "status")
		return strings.Contains(out, "socat (pid")
	})
}

// A passthrough tunnel the person configures ([public] tunnel, here
// socat on loopback) starts with the exposure, carries the page, and a
// card decided through it resumes the agent; it stops with the exposure.
func TestPublicThroughAPassthroughTunnel(t *testing.T) {
	socat := needSocat(t)
	relay := strconv.Itoa(freePort(t))
	d := publicDaemon(t, `[public]
tunnel = ["`+socat+`", "TCP-LISTEN:`+relay+`,bind=127.0.0.1,fork,reuseaddr", "TCP:{addr}"]
tunnel_wait_s = 1
`)
	o := publicStart(t, d)
	if o.Tunnel == nil || o.Tunnel.PID == 0 || !strings.Contains(o.Tunnel.Note, "printed no URL") {
		t.Fatalf("the tunnel: %+v", o.Tunnel)
	}
	via := func(u string) string {
		p, _ := url.Parse(u)
		p.Host = "127.0.0.1:" + relay
		return p.String()
	}
	ph := newPhone(t)
	clitest.WaitFor(t, 10*time.Second, "the link through the tunnel", func() bool {
		code, _, _ := ph.do("GET", via(o.Link), "", nil)
		return code == 200
	})
	c, done := ph.askCard(d, via(o.URL), "tunnelled", "through-the-tunnel")
	if code, body := ph.decide(via(o.URL), c, "allow"); code != 200 {
		t.Fatalf("decide through the tunnel: %d %s", code, body)
	}
	if r := <-done; r.err != nil || r.res.IsError || !strings.Contains(clitest.Text(t, r.res), "through-the-tunnel") {
		t.Fatalf("the agent's call: %+v %v", r.res, r.err)
	}
	if _, _, code := d.CLI(t.Context(), "public", "stop"); code != 0 {
		t.Fatal("stop")
	}
	clitest.WaitFor(t, 10*time.Second, "the tunnel to stop with the exposure", func() bool {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+relay, time.Second)
		if err == nil {
			c.Close()
		}
		return err != nil
	})
}
