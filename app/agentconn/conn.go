// Package agentconn is an agent's side of the daemon: it finds the daemon
// and the agent's token in the data dir (or, inside a confined run, the
// run's own listener), words a failure to reach it as one sentence, and
// runs a shell command the agent's hook cleared (`gatehouse exec`). It
// links nothing of the daemon, so the stand-alone sandbox helper carries
// it too: the agent's every shell command starts that small static binary
// instead of the full gatehouse.
package agentconn

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gatehouse-dev/gatehouse/backend/datadir"
	"github.com/gatehouse-dev/gatehouse/backend/token"
	"github.com/gatehouse-dev/gatehouse/sandbox/agentbox"
)

// Error is a failure to reach the daemon, in one sentence for the person
// (Msg); Err keeps the cause for logs.
type Error struct {
	Msg string
	Err error
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

func errorf(cause error, format string, args ...any) error {
	return &Error{Msg: fmt.Sprintf(format, args...), Err: cause}
}

// CodexSandboxSettings are what Codex's config.toml needs for the
// agent's own shell to reach Gatehouse (its sandbox refuses every connect
// otherwise).
const CodexSandboxSettings = `sandbox_mode = "workspace-write" (at the top, before any table) and network_access = true under [sandbox_workspace_write]`

// Conn reaches the running daemon with the agent capability, over
// loopback TCP (post).
type Conn struct{ addr, token string }

// Dial finds the daemon for the data dir and the agent's token: the
// agent's own (tokens/<agent>.token, written by `gatehouse install`) or the
// default agent token. Inside a confined run it is the run's listener.
func Dial(dir, agent string) (*Conn, error) {
	if addr, ok := ConfinedAddr(); ok {
		// Inside a confined run the data dir is out of sight; the run's
		// own listener is the capability, and needs no token.
		return &Conn{addr: addr, token: "confined-run"}, nil
	}
	b, err := os.ReadFile(filepath.Join(dir, datadir.AddrFile))
	if err != nil {
		return nil, errorf(err, "no Gatehouse daemon is running for %s; start it with `gatehouse serve` (or open the Gatehouse app)", dir)
	}
	tok := ""
	if agent != "" {
		tok, _ = token.ReadFile(filepath.Join(dir, datadir.TokensDir, agent+".token"))
	}
	if tok == "" {
		if tok, err = token.ReadFile(filepath.Join(dir, datadir.AgentToken)); err != nil {
			return nil, errorf(err, "cannot read the agent token in %s", dir)
		}
	}
	return &Conn{addr: strings.TrimSpace(string(b)), token: tok}, nil
}

// Post sends v as JSON to path and decodes the answer into out, whatever
// the status (the daemon answers errors in the same shape).
func (c *Conn) Post(ctx context.Context, path string, v, out any) error {
	return explain(post(ctx, c.addr, c.token, path, v, out))
}

// PostLines is Post for a route that may answer with lines of JSON as
// they come (content type lines): each is handed to each as it arrives.
// Any other answer is decoded into out, as Post does.
func (c *Conn) PostLines(ctx context.Context, path string, v any, lines string, each func([]byte) error, out any) error {
	return explain(exchange(ctx, c.addr, c.token, path, v, func(a answer) error {
		if a.contentType != lines {
			return decodeAnswer(c.addr, a, out)
		}
		sc := bufio.NewScanner(a.body)
		sc.Buffer(nil, maxAnswer)
		for sc.Scan() {
			if err := each(sc.Bytes()); errors.Is(err, ErrEnoughLines) {
				// The rest of the answer is only its end: not waited for.
				return nil
			} else if err != nil {
				return err
			}
		}
		if err := sc.Err(); err != nil {
			return fmt.Errorf("%w: %w", ErrCutShort, err)
		}
		return nil
	}))
}

// ErrEnoughLines, returned by PostLines' each, ends the answer there.
var ErrEnoughLines = errors.New("no more lines wanted")

// ErrCutShort: an answer of lines broke off (the daemon stopped).
var ErrCutShort = errors.New("the daemon's answer broke off")

// explain turns a request that got no answer this helper could read into
// one sentence that says what to do.
func explain(err error) error {
	var pe *postError
	if !errors.As(err, &pe) {
		return err
	}
	switch {
	case pe.refused:
		// Not the daemon: the sandbox this runs in refused the connect.
		return errorf(pe.err, "this command runs inside a sandbox that allows no network connection, so it cannot reach the Gatehouse daemon at %s; Codex's own sandbox does this unless its config.toml has %s (Gatehouse's sandbox still confines the command)", pe.addr, CodexSandboxSettings)
	case pe.status != "":
		return errorf(pe.err, "the Gatehouse daemon answered %s, which this gatehouse cannot read (are the daemon and this command the same version)", pe.status)
	}
	return errorf(pe.err, "the Gatehouse daemon at %s does not answer; start it with `gatehouse serve`", pe.addr)
}

// ConfinedAddr is where, inside a confined run (`gatehouse run`), the
// daemon's agent routes are: the run's own listener, on the daemon's port
// in the sandbox's loopback. The environment says so, or, for a server the
// agent started with an environment of its own, the run's file (in the
// sandbox, or on Landlock in the agent's home).
func ConfinedAddr() (string, bool) {
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
