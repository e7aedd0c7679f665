//go:build integration

package cli_test

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest"
	"github.com/gatehouse-dev/gatehouse/backend/exposure"
)

// offLoopback is an address of this machine a device on its network
// could reach: an interface that is up, not loopback, not link-local.
func offLoopback(t *testing.T) string {
	t.Helper()
	ifs, err := net.Interfaces()
	if err != nil {
		t.Skipf("skipped: cannot list this machine's network interfaces: %v", err)
	}
	var v6 string
	for _, i := range ifs {
		if i.Flags&net.FlagUp == 0 || i.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, _ := i.Addrs()
		for _, a := range addrs {
			n, ok := a.(*net.IPNet)
			if !ok || n.IP.IsLoopback() || n.IP.IsLinkLocalUnicast() {
				continue
			}
			if n.IP.To4() != nil {
				return n.IP.String()
			}
			if v6 == "" {
				v6 = n.IP.String()
			}
		}
	}
	if v6 == "" {
		t.Skip("skipped: this machine has no non-loopback address (an interface that is up, not link-local) to open an exposure on")
	}
	return v6
}

// pinnedPhone is a device that trusts only the certificate whose SHA-256
// the person was shown, as someone checking the fingerprint would.
func pinnedPhone(t *testing.T, fingerprint string) *phone {
	jar, _ := cookiejar.New(nil)
	tr := &http.Transport{TLSClientConfig: &tls.Config{
		// The certificate is Gatehouse's own: no authority vouches for
		// it, its fingerprint does.
		InsecureSkipVerify: true,
		VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
			if len(raw) == 0 || exposure.Fingerprint(raw[0]) != fingerprint {
				return errors.New("the certificate is not the one whose fingerprint Gatehouse showed")
			}
			return nil
		},
	}}
	t.Cleanup(tr.CloseIdleConnections)
	return &phone{t: t, c: &http.Client{Jar: jar, Transport: tr, Timeout: 10 * time.Second}}
}

// An exposure on an address of this machine that is not loopback serves
// TLS with a certificate whose fingerprint is the one `public start`
// and `public status` print and the QR code carries; plain HTTP to it
// is refused (and spends no token); a card decided over it resumes the
// agent's call.
func TestPublicTLSOffLoopback(t *testing.T) {
	host := offLoopback(t)
	d := clitest.StartAsk(t)
	o := publicStart(t, d, "--listen", net.JoinHostPort(host, "0"))
	if !o.TLS || o.Fingerprint == "" || !strings.HasPrefix(o.Link, "https://"+net.JoinHostPort(host, "")) {
		t.Fatalf("an exposure on %s: %+v", host, o)
	}
	// The QR code is the link with the fingerprint in its fragment.
	want, err := exposure.QRText(o.Link + "#sha256=" + strings.ReplaceAll(o.Fingerprint, ":", ""))
	if err != nil || o.QRText != want {
		t.Fatalf("the QR code does not carry the link and the fingerprint %s (%v)", o.Fingerprint, err)
	}
	if out, _, _ := d.CLI(t.Context(), "public", "status"); !strings.Contains(out, "certificate: SHA-256 "+o.Fingerprint) {
		t.Fatalf("status does not show the fingerprint %s: %q", o.Fingerprint, out)
	}

	// What the listener presents is that certificate.
	conn, err := tls.Dial("tcp", o.Listen, &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatalf("a TLS handshake with %s: %v", o.Listen, err)
	}
	presented := exposure.Fingerprint(conn.ConnectionState().PeerCertificates[0].Raw)
	conn.Close()
	if presented != o.Fingerprint {
		t.Fatalf("the listener presents %s, Gatehouse showed %s", presented, o.Fingerprint)
	}

	// Plain HTTP, the link's token included, opens nothing.
	plain := strings.Replace(o.Link, "https://", "http://", 1)
	if code, _, body := newPhone(t).do("GET", plain, "", nil); code == 200 || strings.Contains(body, "Gatehouse approvals") {
		t.Fatalf("plain HTTP to the exposure: %d %s", code, body)
	}

	ph := pinnedPhone(t, o.Fingerprint)
	if code, _, body := ph.do("GET", o.Link, "", nil); code != 200 || !strings.Contains(body, "Gatehouse approvals") {
		t.Fatalf("the link over TLS after a plain HTTP try: %d %s", code, body)
	}
	c, done := ph.askCard(d, o.URL, "over-tls", "over-tls")
	if code, body := ph.decide(o.URL, c, "allow"); code != 200 {
		t.Fatalf("decide over TLS: %d %s", code, body)
	}
	if r := <-done; r.err != nil || r.res.IsError || !strings.Contains(clitest.Text(t, r.res), "over-tls") {
		t.Fatalf("the agent's call: %+v %v", r.res, r.err)
	}
}
