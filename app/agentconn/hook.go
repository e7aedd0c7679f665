package agentconn

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/gatehouse-dev/gatehouse/backend/transport/hookwire"
	"github.com/gatehouse-dev/gatehouse/sandbox/launch"
)

// DefaultHookTimeout answers before the shortest default hook timeout of
// the agents (60 s), so the agent never kills the hook and lets the call
// through; `gatehouse install` configures a longer one on both sides, so a
// card can wait for the person.
const DefaultHookTimeout = 55 * time.Second

// Hook answers one hook invocation of agent, its input read from in, for
// the daemon of data dir dir: the agent's hook output and exit status. It
// never lets an internal failure through as an allow: any of them blocks
// the call, its reason on stderr too.
func Hook(ctx context.Context, dir string, agent hookwire.Agent, in io.Reader, stderr io.Writer, timeout time.Duration) ([]byte, int) {
	blocked := func(ev hookwire.Event, reason string) ([]byte, int) {
		fmt.Fprintln(stderr, reason)
		return hookwire.Block(agent, ev, reason), hookwire.BlockExit
	}
	raw, err := io.ReadAll(io.LimitReader(in, hookwire.MaxStdin+1))
	if err != nil {
		return blocked(hookwire.Event{}, "Gatehouse could not read the hook input, so it blocked the call.")
	}
	ev, err := hookwire.Parse(agent, raw)
	if err != nil {
		return blocked(hookwire.Event{}, "Gatehouse could not read the hook input ("+err.Error()+"), so it blocked the call.")
	}
	if RunByProcess[string(agent)] {
		// The run its MCP bridge names too (see RunByProcess); the agent's
		// own session id is known only here.
		if p := AgentProcess(); p != "" {
			ev.AgentSessionID, ev.SessionID = ev.SessionID, p
		}
	}
	if ev.Kind == hookwire.PreTool && hookwire.GatehouseTool(ev) {
		// Gatehouse gates the MCP call itself; no second card, no second row.
		return hookwire.Render(agent, ev, hookwire.Answer{Verdict: hookwire.Allow}), 0
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ans, err := askDaemon(ctx, dir, agent, ev)
	if err != nil {
		why := plainError(err)
		if errors.Is(err, context.DeadlineExceeded) {
			// Most often a card that the person has not decided yet.
			why = fmt.Sprintf("Gatehouse did not answer within %s (a card may have been waiting for the person's decision; the hook's --timeout sets how long it waits)", timeout)
		}
		if ev.Kind != hookwire.PreTool {
			// Nothing to block: the tool has run, or no tool is involved.
			fmt.Fprintf(stderr, "gatehouse: %s\n", why)
			return hookwire.Render(agent, ev, hookwire.Answer{Verdict: hookwire.None}), 0
		}
		return blocked(ev, "Gatehouse blocked this call: "+why+".")
	}
	return hookwire.Render(agent, ev, ans), 0
}

func askDaemon(ctx context.Context, dir string, agent hookwire.Agent, ev hookwire.Event) (hookwire.Answer, error) {
	c, err := Dial(dir, string(agent))
	if err != nil {
		return hookwire.Answer{}, err
	}
	// The agent's shell starts the stand-alone helper where one is
	// installed beside this binary: static and small, it starts in about
	// a millisecond where gatehouse takes five (Main).
	exe, err := launch.DefaultHelper()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		return hookwire.Answer{}, fmt.Errorf("find the gatehouse binary: %w", err)
	}
	var ans hookwire.Answer
	if err := c.Post(ctx, hookwire.HookPath, hookwire.HookRequest{Event: ev, Exec: []string{exe, "--data", dir}}, &ans); err != nil {
		return hookwire.Answer{}, err
	}
	switch ans.Verdict {
	case hookwire.Allow, hookwire.Deny, hookwire.None:
		return ans, nil
	}
	return hookwire.Answer{}, fmt.Errorf("the daemon's answer %q is not one this gatehouse knows", ans.Verdict)
}

// plainError is the sentence of an error meant for people.
func plainError(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return strings.TrimSuffix(e.Msg, ".")
	}
	return strings.TrimSuffix(err.Error(), ".")
}

// IsHookLine reports whether args (a program's arguments, its name left
// out) are a hook command line as `gatehouse install` writes it for the
// stand-alone helper: `hook AGENT --data DIR [--timeout D]`.
func IsHookLine(args []string) bool {
	return len(args) > 1 && args[0] == "hook"
}

// HookMain runs such a command line, as `gatehouse hook` does, and
// returns the exit status.
func HookMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hook", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dir := fs.String("data", "", "")
	timeout := fs.Duration("timeout", DefaultHookTimeout, "")
	agent, err := hookwire.ParseAgent(args[1])
	if err == nil {
		err = fs.Parse(args[2:])
	}
	if err == nil && (*dir == "" || fs.NArg() != 0) {
		err = errors.New("hook takes AGENT --data DIR [--timeout D], as `gatehouse install` writes it")
	}
	if err != nil {
		reason := "Gatehouse blocked this call: " + err.Error() + "."
		fmt.Fprintln(stderr, reason)
		// An unknown agent has no format of its own: Claude's is what most
		// read as a block, and the exit status blocks in every agent.
		_, _ = stdout.Write(hookwire.Block(agent, hookwire.Event{}, reason))
		return hookwire.BlockExit
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	out, code := Hook(ctx, *dir, agent, stdin, stderr, *timeout)
	_, _ = stdout.Write(out)
	return code
}
