package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/gatehouse-dev/gatehouse/app/cli/termsafe"
)

// Globals are the flags every subcommand takes.
type Globals struct {
	DataDir  string
	Config   string
	LogLevel string

	Stdout io.Writer
	Stderr io.Writer

	// parsed: the command line was understood and a command began.
	parsed bool
}

// Logger returns the process logger, writing text to stderr. The level was
// checked before any command ran (see checkGlobals).
func (g *Globals) Logger() *slog.Logger {
	level, _ := parseLogLevel(g.LogLevel)
	return slog.New(slog.NewTextHandler(g.Stderr, &slog.HandlerOptions{Level: level}))
}

var logLevels = map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}

// parseLogLevel is the one place --log-level is read; an unknown name is an
// error, not a silent "info".
func parseLogLevel(s string) (slog.Level, error) {
	if l, ok := logLevels[s]; ok {
		return l, nil
	}
	return slog.LevelInfo, oneOf("--log-level", s, []string{"debug", "info", "warn", "error"}, false)
}

// checkGlobals refuses bad global flags before any command does work.
// Cobra calls it once the command line parsed: an error before it is the
// command line's (see usageError).
func (g *Globals) checkGlobals(*cobra.Command, []string) error {
	g.parsed = true
	_, err := parseLogLevel(g.LogLevel)
	return err
}

type commandFactory func(*Globals) *cobra.Command

var registered []commandFactory

// register adds a subcommand; called from init in each command file.
func register(f commandFactory) { registered = append(registered, f) }

// hiddenEntrypoints run before cobra parses anything (for example the
// sandbox re-exec helper, whose argv belongs to the target program).
var hiddenEntrypoints = map[string]func(args []string) int{}

// UserError is an error whose message is meant for the person at the
// terminal: one plain sentence that says what to do. Anything else is
// treated as a bug and printed with its full chain.
type UserError struct {
	Msg string
	Err error
}

func (e *UserError) Error() string { return e.Msg }
func (e *UserError) Unwrap() error { return e.Err }

// userErrorf builds a UserError around an underlying cause.
func userErrorf(cause error, format string, args ...any) error {
	return &UserError{Msg: fmt.Sprintf(format, args...), Err: cause}
}

// exitCodeError lets a command choose its exit status without printing.
type exitCodeError struct{ code int }

func (e exitCodeError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func newRoot(g *Globals) *cobra.Command {
	root := &cobra.Command{
		Use:           "gatehouse",
		Short:         "Gatehouse stands between AI coding agents and your computer",
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		Version:       Version,
	}
	root.SetVersionTemplate(versionLine() + "\n")
	root.PersistentPreRunE = g.checkGlobals
	var sf serveFlags
	sf.add(root.Flags())
	root.RunE = func(cmd *cobra.Command, _ []string) error {
		return runDefault(cmd, g, &sf)
	}
	root.SetOut(g.Stdout)
	root.SetErr(g.Stderr)
	pf := root.PersistentFlags()
	pf.StringVar(&g.DataDir, "data", "", "data directory (default $XDG_DATA_HOME/gatehouse)")
	pf.StringVar(&g.Config, "config", "", "config file (default $XDG_CONFIG_HOME/gatehouse/config.toml)")
	pf.StringVar(&g.LogLevel, "log-level", "info", "log level: debug, info, warn, error")
	for _, f := range registered {
		root.AddCommand(f(g))
	}
	return root
}

// runDefault is what a bare `gatehouse` does: the desktop app where the
// build has one and a display is present, else the headless daemon.
var runDefault = func(cmd *cobra.Command, g *Globals, f *serveFlags) error {
	fmt.Fprintln(g.Stderr, "gatehouse: this build has no desktop window; starting the headless daemon (same as `gatehouse serve`).")
	return runServe(cmd, g, f)
}

// Main runs the CLI and returns the process exit code.
func Main(args []string) int {
	if len(args) > 0 {
		if f, ok := hiddenEntrypoints[args[0]]; ok {
			return f(args[1:])
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return execute(ctx, &Globals{Stdout: os.Stdout, Stderr: os.Stderr}, args)
}

// execute runs the command args name and reports how it went on
// g.Stderr, returning the exit code.
func execute(ctx context.Context, g *Globals, args []string) int {
	root := newRoot(g)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	return reportError(g.Stderr, usageError(g, cmd, err))
}

// usageError adds how a command is used to what cobra found wrong with its
// command line (an argument too many or missing, an unknown or missing
// flag), which alone does not say what to type.
func usageError(g *Globals, cmd *cobra.Command, err error) error {
	var ue *UserError
	var ec exitCodeError
	if err == nil || g.parsed || cmd == nil || errors.As(err, &ue) || errors.As(err, &ec) {
		return err
	}
	if !cmd.HasParent() {
		return userErrorf(err, "%v; `gatehouse --help` lists the commands", err)
	}
	return userErrorf(err, "%v; usage: %s (more in `%s --help`)", err, cmd.UseLine(), cmd.CommandPath())
}

func reportError(w io.Writer, err error) int {
	if err == nil {
		return 0
	}
	var ec exitCodeError
	if errors.As(err, &ec) {
		return ec.code
	}
	// Messages can quote what an agent wrote (a path, a name): escaped.
	var ue *UserError
	if errors.As(err, &ue) {
		fmt.Fprintf(w, "gatehouse: %s\n", termsafe.Text(ue.Msg))
		// The daemon's own sentence often comes back as the cause too:
		// a detail that says nothing more is not printed again.
		if ue.Err != nil && os.Getenv("GATEHOUSE_DEBUG") != "" && !strings.Contains(ue.Msg, ue.Err.Error()) {
			fmt.Fprintf(w, "  detail: %s\n", termsafe.Text(ue.Err.Error()))
		}
		return 1
	}
	fmt.Fprintf(w, "gatehouse: %s\n", termsafe.Text(err.Error()))
	return 1
}
