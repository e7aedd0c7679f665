package egress

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// hopHeaders are the proxy's business, never forwarded.
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authorization", "Proxy-Authenticate", "Te", "Trailer", "Upgrade"}

// forward serves one plain http:// request: its URL's host must be the
// one its Host header names, then it goes to the server in origin form
// with Connection: close, and the response comes back byte for byte.
func (r *Run) forward(c net.Conn, br *bufio.Reader, h *head, rec *Connection) *refusal {
	rf := r.forwardChecked(c, br, h, rec)
	if rf != nil {
		writeRefusal(c, rf)
	}
	return rf
}

func (r *Run) forwardChecked(c net.Conn, br *bufio.Reader, h *head, rec *Connection) *refusal {
	u, err := url.Parse(h.target)
	switch {
	case err != nil || u.Host == "":
		return refuse(400, "Gatehouse's proxy takes absolute http:// URLs or CONNECT, not %q", h.target)
	case strings.EqualFold(u.Scheme, "https"):
		return refuse(400, "send https through CONNECT (set HTTPS_PROXY), not as a plain proxy request")
	case !strings.EqualFold(u.Scheme, "http"):
		return refuse(400, "Gatehouse's proxy carries http and https only, not %s", u.Scheme)
	case u.User != nil:
		return refuse(400, "Gatehouse's proxy does not send user names or passwords in URLs; remove the user:password@ part")
	}
	port := 80
	if p := u.Port(); p != "" {
		if port, err = parsePort(p); err != nil {
			return refuse(400, "the request's URL has a bad port: %v", err)
		}
	}
	if hh := h.header.Get("Host"); hh != "" && !sameAuthority(hh, u.Hostname(), port) {
		return refuse(403, "the request's Host header names %q but its URL goes to %s, so Gatehouse's proxy refused it", hh, u.Host)
	}
	t, rf := r.admit(u.Hostname(), port, rec)
	if rf != nil {
		return rf
	}
	// The head is read again, now with the body framing it announces.
	req, err := http.ReadRequest(bufio.NewReader(io.MultiReader(bytes.NewReader(h.raw), br)))
	if err != nil {
		return refuse(400, "Gatehouse's proxy could not read the request: %v", err)
	}
	for _, k := range hopHeaders {
		req.Header.Del(k)
	}
	req.Host = t.name
	if port != 80 {
		req.Host += ":" + strconv.Itoa(port)
	}
	req.Close = true
	server, rf := r.dial(t)
	if rf != nil {
		return rf
	}
	defer server.Close()
	rec.Addr = server.RemoteAddr().String()
	_ = c.SetReadDeadline(time.Time{})
	up := &countingWriter{w: server}
	if err := req.Write(up); err != nil {
		rec.BytesUp = up.n
		return &refusal{status: 502, msg: "Gatehouse's proxy could not send the request to " + t.name, err: err}
	}
	rec.BytesUp = up.n
	n, _ := io.Copy(c, server)
	rec.BytesDown = n
	return nil
}

// sameAuthority compares a Host header with the URL's host and port.
func sameAuthority(hostHeader, host string, port int) bool {
	h, p, err := net.SplitHostPort(hostHeader)
	if err != nil {
		h, p = hostHeader, "80"
	}
	norm := func(s string) string { return strings.TrimSuffix(strings.ToLower(s), ".") }
	return norm(h) == norm(host) && p == strconv.Itoa(port)
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
