package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/gatehouse-dev/gatehouse/backend/daemon"
	"github.com/gatehouse-dev/gatehouse/backend/token"
)

// agentConn reaches the running daemon with the agent capability, as an
// agent's hook or its rewritten shell command does.
type agentConn struct {
	base  string
	token string
	http  *http.Client
}

// dialAgent finds the daemon for the data dir and the agent's token: the
// agent's own (tokens/<agent>.token, written by `gatehouse install`) or the
// default agent token.
func dialAgent(dir, agent string) (*agentConn, error) {
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
	return &agentConn{base: "http://" + strings.TrimSpace(string(b)), token: tok, http: &http.Client{}}, nil
}

// post sends v as JSON to path and decodes the answer into out, whatever
// the status (the daemon answers errors in the same shape).
func (c *agentConn) post(ctx context.Context, path string, v, out any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EACCES) {
		// Not the daemon: the sandbox this runs in refused the connect.
		return userErrorf(err, "this command runs inside a sandbox that allows no network connection, so it cannot reach the Gatehouse daemon at %s; Codex's own sandbox does this unless its config.toml has %s (Gatehouse's sandbox still confines the command)", strings.TrimPrefix(c.base, "http://"), codexSandboxSettings)
	}
	if err != nil {
		return userErrorf(err, "the Gatehouse daemon at %s does not answer; start it with `gatehouse serve`", strings.TrimPrefix(c.base, "http://"))
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("read the daemon's answer: %w", err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return userErrorf(err, "the Gatehouse daemon answered %s, which this gatehouse cannot read (are the daemon and this command the same version)", resp.Status)
	}
	return nil
}
