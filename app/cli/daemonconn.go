package cli

import (
	"context"
	"errors"

	"github.com/gatehouse-dev/gatehouse/app/agentconn"
)

// agentConn reaches the running daemon with the agent capability, as an
// agent's hook or its rewritten shell command does; it words the client's
// failures for the person at the terminal.
type agentConn struct{ c *agentconn.Conn }

// dialAgent finds the daemon for the data dir and the agent's token (see
// agentconn.Dial).
func dialAgent(dir, agent string) (*agentConn, error) {
	c, err := agentconn.Dial(dir, agent)
	if err != nil {
		return nil, agentError(err)
	}
	return &agentConn{c: c}, nil
}

// post sends v as JSON to path and decodes the answer into out.
func (c *agentConn) post(ctx context.Context, path string, v, out any) error {
	return agentError(c.c.Post(ctx, path, v, out))
}

// agentError makes agentconn's sentence this CLI's user error.
func agentError(err error) error {
	var e *agentconn.Error
	if errors.As(err, &e) {
		return userErrorf(e.Err, "%s", e.Msg)
	}
	return err
}
