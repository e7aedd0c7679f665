package egress

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"net"
	"testing"
	"time"
)

// clientHello is what crypto/tls sends first for name.
func clientHello(t testing.TB, name string) []byte {
	a, b := net.Pipe()
	go func() {
		c := tls.Client(a, &tls.Config{ServerName: name, InsecureSkipVerify: true})
		_ = c.SetDeadline(time.Now().Add(2 * time.Second))
		_ = c.Handshake()
		a.Close()
	}()
	var buf bytes.Buffer
	chunk := make([]byte, 64<<10)
	_ = b.SetReadDeadline(time.Now().Add(2 * time.Second))
	n, _ := b.Read(chunk)
	buf.Write(chunk[:n])
	b.Close()
	return buf.Bytes()
}

func TestPeekClientHello(t *testing.T) {
	hello := clientHello(t, "Pkgs.Example.Test.")
	raw, sni, err := peekClientHello(bufio.NewReader(bytes.NewReader(append(hello, "rest"...))))
	if err != nil || sni != "pkgs.example.test" || !bytes.Equal(raw, hello) {
		t.Fatalf("sni %q err %v, raw %d of %d bytes", sni, err, len(raw), len(hello))
	}
	// The same greeting split over two records still names its server.
	body := hello[5:]
	split := append([]byte{0x16, 3, 1, 0, 10}, body[:10]...)
	split = append(split, 0x16, 3, 1, byte((len(body)-10)>>8), byte(len(body)-10))
	split = append(split, body[10:]...)
	if _, sni, err := peekClientHello(bufio.NewReader(bytes.NewReader(split))); err != nil || sni != "pkgs.example.test" {
		t.Errorf("split hello: %q %v", sni, err)
	}
	for name, in := range map[string][]byte{
		"http":      []byte("GET / HTTP/1.1\r\n\r\n"),
		"truncated": hello[:len(hello)/2],
		"empty":     nil,
	} {
		if _, sni, err := peekClientHello(bufio.NewReader(bytes.NewReader(in))); err == nil {
			t.Errorf("%s: accepted with name %q", name, sni)
		}
	}
}

func FuzzPeekClientHello(f *testing.F) {
	f.Add(clientHello(f, "pkgs.example.test"))
	f.Add([]byte{0x16, 3, 1, 0, 4, 1, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		raw, _, _ := peekClientHello(bufio.NewReader(bytes.NewReader(b)))
		if len(raw) > len(b) || !bytes.Equal(raw, b[:len(raw)]) {
			t.Fatalf("raw is not a prefix of the input")
		}
	})
}
