// Package client is the one way the CLI, the tray and the window reach a
// running daemon: the control API over the same-uid unix socket (Client,
// SocketDialer), and the agent capability over loopback TCP with a bearer
// token, as an agent's hook does (Agent).
package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// ErrNoDaemon means nothing answers on the control socket.
var ErrNoDaemon = errors.New("the Gatehouse daemon is not running; start it with `gatehouse serve` (or open the Gatehouse app)")

// Client is a control API client.
type Client struct {
	http *http.Client
	sock string
}

// Socket is the control socket of the daemon whose data dir is dataDir
// (datadir.ControlSocket: the name is written here so that the tray and the
// window, which import this package, do not link the daemon).
func Socket(dataDir string) string { return filepath.Join(dataDir, "control.sock") }

// SocketDialer dials sock whatever address a request names, for an
// http.Transport that speaks to the daemon over its control socket.
func SocketDialer(sock string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}
}

// New returns a client for the daemon whose data dir is dataDir.
func New(dataDir string) *Client {
	sock := Socket(dataDir)
	tr := &http.Transport{
		DialContext:     SocketDialer(sock),
		MaxIdleConns:    2,
		IdleConnTimeout: 30 * time.Second,
	}
	return &Client{http: &http.Client{Transport: tr}, sock: sock}
}

// APIError is a non-2xx answer; Msg is the daemon's one-line reason.
type APIError struct {
	Status int
	Msg    string
}

func (e *APIError) Error() string { return e.Msg }

func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	req, err := newRequest(ctx, method, "http://gatehouse"+path, in)
	if err != nil {
		return err
	}
	resp, err := c.send(req)
	if err != nil {
		return err
	}
	defer closeBody(resp.Body)
	if out == nil {
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("decode %s reply: %w", path, err)
	}
	return nil
}

// closeBody reads what is left of a reply (its last newline) and closes
// it, so the connection serves the next request: `gatehouse run` says
// how its agent ended on the one it opened the run with.
func closeBody(b io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(b, 4<<10))
	b.Close()
}

// newRequest is a request with in as its JSON body (none when in is nil).
func newRequest(ctx context.Context, method, url string, in any) (*http.Request, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return nil, err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// send does req over the control socket. A non-2xx answer is an
// *APIError, its body read and closed.
func (c *Client) send(req *http.Request) (*http.Response, error) {
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, c.dialError(err)
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		return nil, decodeError(resp)
	}
	return resp, nil
}

func (c *Client) dialError(err error) error {
	if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("%w (no answer on %s)", ErrNoDaemon, c.sock)
	}
	if errors.Is(err, syscall.ENOTDIR) {
		// --data names a file: no daemon keeps its data there.
		return fmt.Errorf("%w (%s is not a directory)", ErrNoDaemon, filepath.Dir(c.sock))
	}
	if errors.Is(err, syscall.EACCES) {
		return fmt.Errorf("cannot open %s: it belongs to another user; run the CLI as the user who runs the daemon: %w", c.sock, err)
	}
	return err
}

func decodeError(resp *http.Response) error {
	var e struct {
		Error string `json:"error"`
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if json.Unmarshal(b, &e) == nil && e.Error != "" {
		return &APIError{Status: resp.StatusCode, Msg: e.Error}
	}
	return &APIError{Status: resp.StatusCode, Msg: fmt.Sprintf("daemon answered %s", resp.Status)}
}

// Get decodes GET path into out.
func (c *Client) Get(ctx context.Context, path string, q url.Values, out any) error {
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	return c.do(ctx, http.MethodGet, path, nil, out)
}

// Post sends in as JSON and decodes the reply into out.
func (c *Client) Post(ctx context.Context, path string, in, out any) error {
	if in == nil {
		in = struct{}{}
	}
	return c.do(ctx, http.MethodPost, path, in, out)
}

// Delete sends a DELETE and decodes the reply into out.
func (c *Client) Delete(ctx context.Context, path string, out any) error {
	return c.do(ctx, http.MethodDelete, path, nil, out)
}

// Stream reads the SSE stream at path and calls fn with each event's name,
// id and data until ctx ends, the server closes, or fn returns an error.
func (c *Client) Stream(ctx context.Context, path string, q url.Values, fn func(event, id string, data []byte) error) error {
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://gatehouse"+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := c.send(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var event, id string
	var data []byte
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if data != nil {
				if err := fn(event, id, data); err != nil {
					return err
				}
			}
			event, data = "", nil
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "event:"):
			event = strings.TrimSpace(line[len("event:"):])
		case strings.HasPrefix(line, "id:"):
			id = strings.TrimSpace(line[len("id:"):])
		case strings.HasPrefix(line, "data:"):
			if data != nil {
				data = append(data, '\n')
			}
			data = append(data, strings.TrimPrefix(line[len("data:"):], " ")...)
		}
	}
	if err := sc.Err(); err != nil && ctx.Err() == nil {
		return err
	}
	return ctx.Err()
}
