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

	"github.com/gatehouse-dev/gatehouse/backend/daemon"
	"github.com/gatehouse-dev/gatehouse/backend/mcpserver"
	"github.com/gatehouse-dev/gatehouse/backend/token"
)

// bearerTransport adds the agent token and marks the session as a bridge.
type bearerTransport struct {
	token string
	base  http.RoundTripper
}

func (b *bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	r.Header.Set(mcpserver.TransportHeader, "stdio")
	return b.base.RoundTrip(r)
}

// daemonEndpoint finds the running daemon's address and checks it answers.
func daemonEndpoint(ctx context.Context, dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, daemon.AddrFile))
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
		return &cobra.Command{
			Use:   "mcp",
			Short: "Speak MCP on stdin/stdout and bridge to the running daemon (for agents that launch a command)",
			Long: `gatehouse mcp lets agents that only launch commands use Gatehouse, e.g.
  claude mcp add gatehouse -- gatehouse mcp
It reads the agent token from the data dir and forwards every message to the
running daemon, where it gets the same policy, sandbox and audit as /mcp.`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				ctx := cmd.Context()
				dir, err := dataDir(g, "")
				if err != nil {
					return err
				}
				addr, err := daemonEndpoint(ctx, dir)
				if err != nil {
					return err
				}
				tok, err := token.ReadFile(filepath.Join(dir, daemon.AgentToken))
				if err != nil {
					return userErrorf(err, "cannot read the agent token: %v", err)
				}
				up, err := (&mcp.StreamableClientTransport{
					Endpoint:   "http://" + addr + "/mcp",
					HTTPClient: &http.Client{Transport: &bearerTransport{token: tok, base: http.DefaultTransport}},
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
	})
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
