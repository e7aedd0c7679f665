package agentconn

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The hook and `gatehouse exec` each make one request per process, so
// they speak the little HTTP/1.1 it takes themselves: net/http (and the
// TLS and certificate code it links) made every start of the helper,
// and every sandbox it starts as, load and initialise a client it used
// once, and its transport's goroutines added hand-offs to each request.

// maxAnswer bounds what the daemon's answer may hold (a command's output).
const maxAnswer = 64 << 20

// postError is why a request got no answer this helper could read.
type postError struct {
	addr string
	// refused: the connect was refused before it reached the daemon (a
	// sandbox around this process allows no network connection).
	refused bool
	// status is the daemon's HTTP status when it answered in a shape this
	// helper cannot decode; empty when it did not answer at all.
	status string
	err    error
}

func (e *postError) Error() string {
	switch {
	case e.refused:
		return fmt.Sprintf("connect to the Gatehouse daemon at %s refused: %v", e.addr, e.err)
	case e.status != "":
		return fmt.Sprintf("the Gatehouse daemon at %s answered %s in a shape this client cannot read: %v", e.addr, e.status, e.err)
	}
	return fmt.Sprintf("the Gatehouse daemon at %s does not answer: %v", e.addr, e.err)
}

func (e *postError) Unwrap() error { return e.err }

// post sends in as JSON to path on the daemon at addr (host:port) with
// tok, on a connection of its own, and decodes the answer into out,
// whatever the status (the daemon answers errors in the same shape).
func post(ctx context.Context, addr, tok, path string, in, out any) error {
	return exchange(ctx, addr, tok, path, in, func(a answer) error { return decodeAnswer(addr, a, out) })
}

// decodeAnswer reads a's whole body, as JSON, into out.
func decodeAnswer(addr string, a answer, out any) error {
	raw, err := io.ReadAll(io.LimitReader(a.body, maxAnswer+1))
	switch {
	case err != nil:
		return fmt.Errorf("read the daemon's answer: %w", err)
	case len(raw) > maxAnswer:
		return fmt.Errorf("read the daemon's answer: it is larger than %d bytes", maxAnswer)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return &postError{addr: addr, status: a.status, err: err}
	}
	return nil
}

// answer is the daemon's answer as it arrives: its status ("200 OK"), its
// content type, and its body, read as it comes.
type answer struct {
	status, contentType string
	body                io.Reader
}

// exchange sends in as JSON to path on the daemon at addr with tok, on a
// connection of its own, and hands the answer to read while the
// connection is open.
func exchange(ctx context.Context, addr, tok, path string, in any, read func(answer) error) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		refused := errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EACCES)
		return &postError{addr: addr, refused: refused, err: err}
	}
	defer conn.Close()
	// A cancelled request (the agent's interrupt, the hook's timeout)
	// unblocks the reads below; closing the connection then tells the
	// daemon, which stops the command.
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	fail := func(err error) error {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return &postError{addr: addr, err: err}
	}
	req := make([]byte, 0, 256+len(body))
	req = appendHead(req, path, addr, tok, fmt.Sprintf("Content-Type: application/json\r\nContent-Length: %d\r\n", len(body)))
	if _, err := conn.Write(append(req, body...)); err != nil {
		return fail(err)
	}
	a, err := readHead(bufio.NewReader(conn))
	if err != nil {
		return fail(err)
	}
	if err := read(a); err != nil {
		if ctx.Err() != nil {
			return fail(err)
		}
		return err
	}
	return nil
}

// appendHead appends a POST's head to path on the daemon at addr with
// tok, fields (each ending in CRLF) among its headers, on a connection
// that closes after the answer.
func appendHead(b []byte, path, addr, tok, fields string) []byte {
	return fmt.Appendf(b, "POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n%sConnection: close\r\n\r\n", path, addr, tok, fields)
}

// readHead reads an HTTP/1.1 response's status line and headers, and
// gives its body as a reader: sent with a length, chunked, or up to the
// connection's close.
func readHead(r *bufio.Reader) (answer, error) {
	line, err := readLine(r)
	if err != nil {
		return answer{}, err
	}
	proto, status, ok := strings.Cut(line, " ")
	if !ok || !strings.HasPrefix(proto, "HTTP/1.") {
		return answer{}, fmt.Errorf("not an HTTP answer: %q", truncate(line))
	}
	a := answer{status: status}
	length, chunked := int64(-1), false
	for {
		h, err := readLine(r)
		if err != nil {
			return answer{}, err
		}
		if h == "" {
			break
		}
		name, value, _ := strings.Cut(h, ":")
		value = strings.TrimSpace(value)
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "content-length":
			if length, err = strconv.ParseInt(value, 10, 64); err != nil || length < 0 {
				return answer{}, fmt.Errorf("bad Content-Length %q", truncate(value))
			}
		case "transfer-encoding":
			chunked = strings.EqualFold(value, "chunked")
		case "content-type":
			a.contentType, _, _ = strings.Cut(value, ";")
		}
	}
	switch {
	case chunked:
		a.body = &chunkedReader{r: r}
	case length >= 0:
		a.body = io.LimitReader(r, length)
	default:
		a.body = r
	}
	return a, nil
}

// chunkedReader reads a chunked body (RFC 9112, 7.1) as it comes,
// trailers ignored.
type chunkedReader struct {
	r    *bufio.Reader
	left int64 // of the current chunk
	done bool
}

func (c *chunkedReader) Read(p []byte) (int, error) {
	for c.left == 0 {
		if c.done {
			return 0, io.EOF
		}
		if err := c.next(); err != nil {
			return 0, err
		}
	}
	n, err := c.r.Read(p[:min(int64(len(p)), c.left)])
	c.left -= int64(n)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	if err == nil && c.left == 0 {
		if end, e := readLine(c.r); e != nil || end != "" {
			err = errors.Join(e, errors.New("a chunk does not end where its size says"))
		}
	}
	return n, err
}

// next reads the next chunk's size line, and the trailers after the last.
func (c *chunkedReader) next() error {
	line, err := readLine(c.r)
	if err != nil {
		return err
	}
	size, _, _ := strings.Cut(line, ";")
	n, err := strconv.ParseInt(strings.TrimSpace(size), 16, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("bad chunk size %q", truncate(line))
	}
	if n > 0 {
		c.left = n
		return nil
	}
	c.done = true
	for {
		if t, err := readLine(c.r); err != nil || t == "" {
			return err
		}
	}
}

// maxLine bounds a status or header line.
const maxLine = 64 << 10

// readLine reads one CRLF (or LF) terminated line, without it.
func readLine(r *bufio.Reader) (string, error) {
	var b []byte
	for {
		part, more, err := r.ReadLine()
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return "", err
		}
		b = append(b, part...)
		if len(b) > maxLine {
			return "", errors.New("a header line is too long")
		}
		if !more {
			return string(b), nil
		}
	}
}

func truncate(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
