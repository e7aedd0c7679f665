package egress

import (
	"bufio"
	"errors"
	"net"
	"time"
)

// connect serves a CONNECT tunnel: admit the authority, dial, answer 200,
// then read the ClientHello and refuse any other server name (or a
// tunnel that is not TLS) before a byte of it reaches the server.
func (r *Run) connect(c net.Conn, br *bufio.Reader, h *head, rec *Connection) *refusal {
	host, portStr, err := net.SplitHostPort(h.target)
	if err != nil {
		rf := refuse(400, "Gatehouse's proxy needs CONNECT host:port, not %q", h.target)
		writeRefusal(c, rf)
		return rf
	}
	port, err := parsePort(portStr)
	if err != nil {
		rf := refuse(400, "Gatehouse's proxy needs CONNECT host:port: %v", err)
		writeRefusal(c, rf)
		return rf
	}
	t, rf := r.admit(host, port, rec)
	if rf != nil {
		writeRefusal(c, rf)
		return rf
	}
	server, rf := r.dial(t)
	if rf != nil {
		writeRefusal(c, rf)
		return rf
	}
	defer server.Close()
	rec.Addr = server.RemoteAddr().String()
	if _, err := c.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
		return nil
	}
	_ = c.SetReadDeadline(time.Now().Add(headTimeout))
	hello, sni, err := peekClientHello(br)
	if err != nil {
		if !errors.Is(err, errNotTLS) {
			_, _ = c.Write(unrecognizedName)
		}
		return refuse(403, "the tunnel to %s:%d was refused: %v; Gatehouse's proxy carries only TLS that names the approved domain", t.name, port, err)
	}
	if sni != t.name {
		_, _ = c.Write(unrecognizedName)
		return refuse(403, "the TLS server name %q differs from the CONNECT's %s, so Gatehouse's proxy refused the tunnel", sni, t.name)
	}
	_ = c.SetReadDeadline(time.Time{})
	// Bytes the client sent past the ClientHello wait in the reader.
	rest, _ := br.Peek(br.Buffered())
	pipe(c, append(hello, rest...), server, rec)
	return nil
}
