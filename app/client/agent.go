package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"syscall"
)

// Agent reaches the daemon with the agent capability over loopback TCP,
// as an agent's hook or its rewritten shell command does.
type Agent struct {
	addr  string
	token string
	http  *http.Client
}

// NewAgent returns a client for the daemon listening on addr (host:port)
// that presents token.
func NewAgent(addr, token string) *Agent {
	return &Agent{addr: addr, token: token, http: &http.Client{}}
}

// AgentError is why an agent's request got no answer this client could
// read. The caller words it for the person; Err is the cause.
type AgentError struct {
	// Addr is the daemon's address.
	Addr string
	// Refused: the connect was refused before it reached the daemon (a
	// sandbox around this process allows no network connection).
	Refused bool
	// Status is the daemon's HTTP status when it answered in a shape this
	// client cannot decode; empty when it did not answer at all.
	Status string
	Err    error
}

func (e *AgentError) Error() string {
	switch {
	case e.Refused:
		return fmt.Sprintf("connect to the Gatehouse daemon at %s refused: %v", e.Addr, e.Err)
	case e.Status != "":
		return fmt.Sprintf("the Gatehouse daemon at %s answered %s in a shape this client cannot read: %v", e.Addr, e.Status, e.Err)
	}
	return fmt.Sprintf("the Gatehouse daemon at %s does not answer: %v", e.Addr, e.Err)
}

func (e *AgentError) Unwrap() error { return e.Err }

// Post sends in as JSON to path and decodes the answer into out, whatever
// the status (the daemon answers errors in the same shape).
func (a *Agent) Post(ctx context.Context, path string, in, out any) error {
	req, err := newRequest(ctx, http.MethodPost, "http://"+a.addr+path, in)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	resp, err := a.http.Do(req)
	if err != nil {
		refused := errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EACCES)
		return &AgentError{Addr: a.addr, Refused: refused, Err: err}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("read the daemon's answer: %w", err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return &AgentError{Addr: a.addr, Status: resp.Status, Err: err}
	}
	return nil
}
