package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/gatehouse-dev/gatehouse/app/client"
	"github.com/gatehouse-dev/gatehouse/backend/daemon"
	"github.com/gatehouse-dev/gatehouse/backend/token"
	"github.com/gatehouse-dev/gatehouse/sandbox/agentbox"
)

// agentConn reaches the running daemon with the agent capability, as an
// agent's hook or its rewritten shell command does; it words the client's
// failures for the person at the terminal.
type agentConn struct{ c *client.Agent }

// dialAgent finds the daemon for the data dir and the agent's token: the
// agent's own (tokens/<agent>.token, written by `gatehouse install`) or the
// default agent token.
func dialAgent(dir, agent string) (*agentConn, error) {
	if addr, ok := confinedAgentAddr(); ok {
		// Inside a confined run the data dir is out of sight; the run's
		// own listener is the capability, and needs no token.
		return &agentConn{c: client.NewAgent(addr, "confined-run")}, nil
	}
	b, err := os.ReadFile(filepath.Join(dir, daemon.AddrFile))
	if err != nil {
		return nil, userErrorf(err, "no Gatehouse daemon is running for %s; start it with `gatehouse serve` (or open the Gatehouse app)", dir)
	}
	tok := ""
	if agent != "" {
		tok, _ = token.ReadFile(filepath.Join(dir, "tokens", agent+".token"))
	}
	if tok == "" {
		if tok, err = token.ReadFile(filepath.Join(dir, daemon.AgentToken)); err != nil {
			return nil, userErrorf(err, "cannot read the agent token in %s", dir)
		}
	}
	return &agentConn{c: client.NewAgent(strings.TrimSpace(string(b)), tok)}, nil
}

// post sends v as JSON to path and decodes the answer into out, whatever
// the status (the daemon answers errors in the same shape).
func (c *agentConn) post(ctx context.Context, path string, v, out any) error {
	err := c.c.Post(ctx, path, v, out)
	var ae *client.AgentError
	if !errors.As(err, &ae) {
		return err
	}
	switch {
	case ae.Refused:
		// Not the daemon: the sandbox this runs in refused the connect.
		return userErrorf(ae.Err, "this command runs inside a sandbox that allows no network connection, so it cannot reach the Gatehouse daemon at %s; Codex's own sandbox does this unless its config.toml has %s (Gatehouse's sandbox still confines the command)", ae.Addr, codexSandboxSettings)
	case ae.Status != "":
		return userErrorf(ae.Err, "the Gatehouse daemon answered %s, which this gatehouse cannot read (are the daemon and this command the same version)", ae.Status)
	}
	return userErrorf(ae.Err, "the Gatehouse daemon at %s does not answer; start it with `gatehouse serve`", ae.Addr)
}

// confinedAgentAddr is where, inside a confined run (`gatehouse run`), the
// daemon's agent routes are: the run's own listener, on the daemon's port
// in the sandbox's loopback.
// The environment says so, or, for a server the agent started with an
// environment of its own, the run's file (in the sandbox, or on Landlock
// in the agent's home).
func confinedAgentAddr() (string, bool) {
	if os.Getenv("GATEHOUSE_RUN") != "" {
		if addr := os.Getenv("GATEHOUSE_AGENT_ADDR"); addr != "" {
			return addr, true
		}
	}
	if ri, ok := agentbox.FindRunInfo(); ok {
		return ri.AgentAddr, true
	}
	return "", false
}
