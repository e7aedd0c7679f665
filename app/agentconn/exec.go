package agentconn

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/gatehouse-dev/gatehouse/app/cli/termsafe"
	"github.com/gatehouse-dev/gatehouse/backend/transport/hookwire"
)

// CannotRun is the exit status when Gatehouse did not run the command, as
// a shell uses 126 for a command it found but could not execute.
const CannotRun = 126

// interrupted is the exit status of a command stopped because this
// process was (a shell gives 128+SIGINT).
const interrupted = 130

// changesRefused is the exit status of a command that succeeded but
// whose changes did not land (the person or policy discarded them, they
// were rolled back, or protected paths were kept out): the model must not
// take it for a done one. A command that failed keeps its own status.
const changesRefused = 1

// ExecLine is what the hook's rewritten line gives `gatehouse exec`.
type ExecLine struct {
	Dir     string // the data dir (--data)
	Agent   string // the agent whose hook cleared the command
	Ticket  string
	Command string
	// CdFile, if set, is where to write the directory the command's shell
	// ended in when it moved; the line then moves the agent's shell there.
	CdFile string
}

// Exec has the daemon run the command the agent's hook cleared under
// l.Ticket, in the agent session's sandbox, and prints its output, then
// what Gatehouse adds ("gatehouse: …" lines on stderr). It returns the
// exit status: the command's own, or as Status says. What stdin gives
// while the command runs is its input.
func Exec(ctx context.Context, l ExecLine, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	if l.Agent != "" {
		if _, err := hookwire.ParseAgent(l.Agent); err != nil {
			return CannotRun, errorf(err, "--agent: %v", err)
		}
	}
	// The ticket is the hook's, and only the token the hook used may run
	// it: the agent's own when it was installed.
	c, err := Dial(l.Dir, l.Agent)
	if err != nil {
		return CannotRun, err
	}
	// The output comes as the command writes it, so the agent (and the
	// person watching it) sees a long build's progress, and a background
	// command's output before it ends.
	var res hookwire.ExecResult
	var streamed, got bool
	input := hasInput(stdin)
	errEnd := "\n" // how the stderr written so far ends
	each := func(line []byte) error {
		streamed = true
		var f hookwire.ExecFrame
		if err := json.Unmarshal(line, &f); err != nil {
			return fmt.Errorf("read the daemon's answer: %w", err)
		}
		if f.Input != "" && input {
			// Ends with this process, or when the daemon stops taking
			// it; the command's input is not its result.
			go func() { _ = c.Feed(ctx, f.Input, stdin) }()
		}
		_, _ = io.WriteString(stdout, f.Stdout)
		if f.Stderr != "" {
			_, _ = io.WriteString(stderr, f.Stderr)
			errEnd = f.Stderr
		}
		if f.Result != nil {
			res, got = *f.Result, true
			return ErrEnoughLines // the result is the last line
		}
		return nil
	}
	err = c.PostLines(ctx, hookwire.ExecPath, hookwire.ExecRequest{Ticket: l.Ticket, Command: l.Command, Stream: true, Input: input}, hookwire.StreamType, each, &res)
	switch {
	case ctx.Err() != nil:
		// The agent or the person stopped it; the daemon saw the
		// connection go and stopped the command, as a shell's Ctrl-C would.
		return interrupted, nil
	case errors.Is(err, ErrCutShort), err == nil && streamed && !got:
		return CannotRun, errorf(err, "the Gatehouse daemon stopped answering before the command ended, so what became of the command and its changes is unknown; see `gatehouse log`, and start the daemon again (`gatehouse serve`, or the app) if it stopped")
	case err != nil:
		return CannotRun, err
	}
	// What did not stream comes with the result (all of it from a daemon
	// that does not stream).
	fmt.Fprint(stdout, res.Stdout)
	fmt.Fprint(stderr, res.Stderr)
	if res.Stderr != "" {
		errEnd = res.Stderr
	}
	if len(res.Notes) > 0 && !strings.HasSuffix(errEnd, "\n") {
		fmt.Fprintln(stderr)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(stderr, "gatehouse: %s\n", n)
	}
	if res.Warning != "" {
		fmt.Fprintf(stderr, "[gatehouse: %s]\n", res.Warning)
	}
	if res.Error != "" {
		fmt.Fprintf(stderr, "gatehouse: %s\n", res.Error)
		return CannotRun, nil
	}
	if res.Cwd != "" && l.CdFile != "" {
		leaveDir(l.CdFile, res.Cwd)
	}
	return Status(res), nil
}

// leaveDir writes dir for the line to move the agent's shell to. A file
// that is there already is not the ticket's own: the shell stays put.
func leaveDir(file, dir string) {
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return
	}
	_, _ = io.WriteString(f, dir+"\n")
	_ = f.Close()
}

// Status is the exit status a shell would give: the command's own, 124
// for a timeout (as timeout(1)), 128+N for a signal; and 1 for a command
// that succeeded but whose changes did not land.
func Status(res hookwire.ExecResult) int {
	if code := commandStatus(res); code != 0 || !res.ChangesRefused {
		return code
	}
	return changesRefused
}

// commandStatus is the command's own status, as a shell would give it.
func commandStatus(res hookwire.ExecResult) int {
	switch {
	case res.Killed && res.KillReason == "timeout":
		return 124
	case res.Signal != "":
		for n := syscall.Signal(1); n < 32; n++ {
			if n.String() == res.Signal || "SIG"+n.String() == res.Signal {
				return 128 + int(n)
			}
		}
		return 128 + int(syscall.SIGKILL)
	}
	return res.ExitCode
}

// IsExecLine reports whether args (a program's arguments, its name left
// out) are the command line the hook rewrote a shell command into for
// the stand-alone helper: `--data DIR exec --agent A --ticket T -- CMD`.
func IsExecLine(args []string) bool {
	return len(args) > 2 && args[0] == "--data" && args[2] == "exec"
}

// Main runs such a command line, as `gatehouse exec` does, and returns
// the exit status.
func Main(args []string) int {
	if !IsExecLine(args) {
		fmt.Fprintln(os.Stderr, "gatehouse: not a command line this program runs")
		return 2
	}
	fs := flag.NewFlagSet("exec", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	agent := fs.String("agent", "", "")
	ticket := fs.String("ticket", "", "")
	cdFile := fs.String("cd-file", "", "")
	if err := fs.Parse(args[3:]); err != nil || *ticket == "" || fs.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "gatehouse: exec takes --agent A --ticket T -- COMMAND, as the hook writes it")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code, err := Exec(ctx, ExecLine{Dir: args[1], Agent: *agent, Ticket: *ticket, Command: fs.Arg(0), CdFile: *cdFile}, os.Stdin, os.Stdout, os.Stderr)
	if err != nil {
		msg := err.Error()
		var e *Error
		if errors.As(err, &e) && e.Err != nil && os.Getenv("GATEHOUSE_DEBUG") != "" {
			msg += "\n  detail: " + e.Err.Error()
		}
		fmt.Fprintf(os.Stderr, "gatehouse: %s\n", termsafe.Text(msg))
	}
	return code
}
