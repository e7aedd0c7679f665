package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/gatehouse-dev/gatehouse/app/agentconn"
	"github.com/gatehouse-dev/gatehouse/backend/datadir"
	"github.com/gatehouse-dev/gatehouse/backend/randid"
	"github.com/gatehouse-dev/gatehouse/backend/session"
	"github.com/gatehouse-dev/gatehouse/backend/token"
	"github.com/gatehouse-dev/gatehouse/backend/transport/mcpserver"
)

// bearerTransport adds the agent token, marks the session as a bridge and
// names the agent run it belongs to.
type bearerTransport struct {
	token string
	run   string
	// cwd is where the agent started the bridge: its project is the
	// session's workspace.
	cwd  string
	base http.RoundTripper
}

func (b *bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	r.Header.Set(mcpserver.TransportHeader, "stdio")
	r.Header.Set(mcpserver.RunHeader, b.run)
	if b.cwd != "" {
		r.Header.Set(mcpserver.CwdHeader, b.cwd)
	}
	return b.base.RoundTrip(r)
}

// daemonEndpoint finds the running daemon's address and checks it answers.
func daemonEndpoint(ctx context.Context, dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, datadir.AddrFile))
	if err != nil {
		return "", userErrorf(err, "no Gatehouse daemon is running for %s; start it with `gatehouse serve` (or open the Gatehouse app)", dir)
	}
	addr := strings.TrimSpace(string(b))
	hctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(hctx, http.MethodGet, "http://"+addr+"/healthz", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", userErrorf(err, "the Gatehouse daemon at %s does not answer; start it with `gatehouse serve`", addr)
	}
	resp.Body.Close()
	return addr, nil
}

func init() {
	register(func(g *Globals) *cobra.Command {
		var agent string
		cmd := &cobra.Command{
			Use:   "mcp",
			Short: "Speak MCP on stdin/stdout and bridge to the running daemon (for agents that launch a command)",
			Long: `gatehouse mcp lets agents that only launch commands use Gatehouse, e.g.
  claude mcp add gatehouse -- gatehouse mcp
It reads the agent token from the data dir and forwards every message to the
running daemon, where it gets the same policy, sandbox and audit as /mcp.`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				ctx := cmd.Context()
				addr, tok, err := bridgeTarget(ctx, g, agent)
				if err != nil {
					return err
				}
				run, err := bridgeRun(agent)
				if err != nil {
					return err
				}
				cwd, _ := os.Getwd()
				httpc := &http.Client{Transport: &bearerTransport{token: tok, run: run, cwd: cwd, base: http.DefaultTransport}}
				// The daemon sees the bridge alive as long as this stream is
				// open: when the bridge exits or is killed, its run's waiting
				// calls are withdrawn and its session ends.
				go holdPresence(ctx, httpc, "http://"+addr+"/mcp/presence")
				up, err := (&mcp.StreamableClientTransport{
					Endpoint:   "http://" + addr + "/mcp",
					HTTPClient: httpc,
					MaxRetries: 3,
				}).Connect(ctx)
				if err != nil {
					return userErrorf(err, "cannot reach the daemon's MCP endpoint: %v", err)
				}
				defer up.Close()
				down, err := (&mcp.IOTransport{Reader: io.NopCloser(cmd.InOrStdin()), Writer: nopWriteCloser{g.Stdout}}).Connect(ctx)
				if err != nil {
					return err
				}
				defer down.Close()
				return bridge(ctx, down, up)
			},
		}
		cmd.Flags().StringVar(&agent, "agent", "", "the agent that starts this bridge ("+strings.Join(session.Agents, ", ")+"): its calls join that agent run's session, shared with its hooks")
		return cmd
	})
}

// bridgeTarget is the daemon's address and the agent token to present:
// from the data dir, or inside a confined run its own listener, which
// needs no token (the data dir is out of sight there).
func bridgeTarget(ctx context.Context, g *Globals, agent string) (addr, tok string, err error) {
	if addr, ok := agentconn.ConfinedAddr(); ok {
		return addr, "confined-run", nil
	}
	dir, err := dataDir(g, "")
	if err != nil {
		return "", "", err
	}
	if addr, err = daemonEndpoint(ctx, dir); err != nil {
		return "", "", err
	}
	tokFile, err := AgentTokenPath(dir, agent)
	if err != nil {
		return "", "", userErrorf(err, "%v", err)
	}
	if tok, err = token.ReadFile(tokFile); err != nil {
		return "", "", userErrorf(err, "cannot read the agent token: %v", err)
	}
	return addr, tok, nil
}

// runEnv is where each agent tells the MCP servers it starts which run
// they serve.
var runEnv = map[string]string{
	"claude": "CLAUDE_CODE_SESSION_ID",
}

// bridgeRun names the run this bridge serves: the agent's own run id when
// the agent provides one, or else a run of the bridge's own, so separate
// bridges never share a session.
func bridgeRun(agent string) (string, error) {
	if agent != "" {
		if err := session.CheckAgent(agent); err != nil {
			return "", userErrorf(err, "--agent: %v", err)
		}
		id := ""
		if v := runEnv[agent]; v != "" {
			id = os.Getenv(v)
		}
		if id == "" && agentconn.RunByProcess[agent] {
			id = agentconn.AgentProcess()
		}
		if id != "" {
			k, err := session.ParseRunKey(agent + ":" + id)
			if err == nil {
				return k.String(), nil
			}
		}
	}
	return randid.New(session.BridgeAgent+":", 12), nil
}

// holdPresence keeps the presence stream open until ctx ends, reopening
// it if the daemon drops it.
func holdPresence(ctx context.Context, c *http.Client, url string) {
	for ctx.Err() == nil {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return
		}
		if resp, err := c.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// bridge copies messages both ways until either side ends.
func bridge(ctx context.Context, down, up mcp.Connection) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, 2)
	pump := func(from, to mcp.Connection, side string) {
		for {
			msg, err := from.Read(ctx)
			if err != nil {
				errc <- fmt.Errorf("%s: %w", side, err)
				return
			}
			if err := to.Write(ctx, msg); err != nil {
				errc <- fmt.Errorf("%s: %w", side, err)
				return
			}
		}
	}
	go pump(down, up, "agent to daemon")
	go pump(up, down, "daemon to agent")
	err := <-errc
	if errors.Is(err, io.EOF) || ctx.Err() != nil {
		return nil // the agent closed stdin: a normal end
	}
	return userErrorf(err, "the bridge to the daemon stopped: %v", err)
}
