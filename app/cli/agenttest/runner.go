package agenttest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/gatehouse-dev/gatehouse/app/cli/clitest/node"
)

// Versions are the pinned CLI releases (scripts/deps.sh installs them).
var Versions = map[string]string{
	"claude": "@anthropic-ai/claude-code@2.1.332",
	"codex":  "@openai/codex@0.171.0",
	"gemini": "@google/gemini-cli@0.61.0",
}

// AgentsDirEnv overrides where the CLIs' node_modules live.
const AgentsDirEnv = "GATEHOUSE_AGENTS_DIR"

// Find returns the path of the pinned CLI name ("claude", "codex",
// "gemini"), or an error that says how to install it.
func Find(name string) (string, error) {
	dir := os.Getenv(AgentsDirEnv)
	if dir == "" {
		cache, err := node.CacheDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(cache, "agents")
	}
	p := filepath.Join(dir, "node_modules", ".bin", name)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("%s (%s) is not installed in %s; run scripts/deps.sh test", name, Versions[name], dir)
	}
	return p, nil
}

// nodeBin is the Node 22 that deps.sh installs; Codex's and Gemini's
// launchers are Node scripts.
func nodeBin() string {
	cache, err := node.CacheDir()
	if err != nil {
		return ""
	}
	return node.BinDir(cache)
}

// CLI is one agent CLI with its own temporary HOME.
type CLI struct {
	Name  string
	Bin   string
	Home  string
	Model *Model
	// Env adds NAME=value pairs to every run (and to Environ).
	Env []string
	// Prefix, when set, runs the CLI through a wrapper command, e.g. one
	// that enters a mount namespace.
	Prefix []string
	// ModelBase, when set, replaces the model's URL where a CLI's own
	// config names it (Codex's provider): a made-up name that a proxy
	// maps to the model.
	ModelBase string

	vars []string // the CLI's own settings, from its constructor
}

// Environ is a run's whole environment: nothing is inherited from the test
// process but PATH, so the machine's own config, keys and proxies stay out.
// Run `gatehouse install` with it so both see the same config dirs.
func (c *CLI) Environ() []string {
	env := []string{
		"PATH=" + nodeBin() + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + c.Home,
		"LANG=C.UTF-8",
		"TERM=dumb",
		"NO_COLOR=1",
		"TMPDIR=" + os.TempDir(),
	}
	env = append(env, c.vars...)
	return append(env, c.Env...)
}

// modelURL is where the CLI's config says the model is.
func (c *CLI) modelURL() string {
	if c.ModelBase != "" {
		return c.ModelBase
	}
	return c.Model.URL()
}

// Result is one finished run.
type Result struct {
	Stdout   string
	Stderr   string
	ExitCode int
	// Requests are the model requests made during the run.
	Requests []Request
}

// String summarises the run for a test failure.
func (r *Result) String() string {
	return fmt.Sprintf("exit %d\n--- stdout\n%s\n--- stderr\n%s", r.ExitCode, tail(r.Stdout), tail(r.Stderr))
}

func tail(s string) string {
	if len(s) > 4000 {
		return "…" + s[len(s)-4000:]
	}
	return s
}

// DefaultTimeout bounds one CLI run.
const DefaultTimeout = 3 * time.Minute

// run starts the CLI in dir with args and closed stdin.
func (c *CLI) run(ctx context.Context, dir string, args ...string) (*Result, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}
	before := len(c.Model.Requests())
	argv := append(append(append([]string{}, c.Prefix...), c.Bin), args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = c.Environ()
	cmd.Stdin = nil // closed: the CLIs must not wait for input
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	res := &Result{Stdout: out.String(), Stderr: errb.String(), Requests: c.Model.Requests()[before:]}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		res.ExitCode = ee.ExitCode()
	case err != nil:
		return res, fmt.Errorf("run %s: %w", c.Name, err)
	}
	if ctx.Err() != nil {
		return res, fmt.Errorf("%s did not finish in time: %w\n%s", c.Name, ctx.Err(), res)
	}
	return res, nil
}

func newCLI(name, home string, m *Model) (*CLI, error) {
	bin, err := Find(name)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, err
	}
	return &CLI{Name: name, Bin: bin, Home: home, Model: m}, nil
}

// ModelSaw reports whether any model request of the run carries text in a
// tool result.
func (r *Result) ModelSaw(text string) bool {
	for _, q := range r.Requests {
		for _, t := range q.ToolResults {
			if strings.Contains(t, text) {
				return true
			}
		}
	}
	return false
}

// ToolResults lists every tool result the model saw during the run.
func (r *Result) ToolResults() []string {
	var out []string
	seen := map[string]bool{}
	for _, q := range r.Requests {
		for _, t := range q.ToolResults {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}
