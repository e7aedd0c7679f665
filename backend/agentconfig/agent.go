package agentconfig

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gatehouse-dev/gatehouse/backend/transport/hookwire"
)

// Agent is an agent CLI that install knows how to wire: the same names
// its hooks speak (package hookwire).
type Agent = hookwire.Agent

const (
	Claude = hookwire.Claude
	Codex  = hookwire.Codex
	Gemini = hookwire.Gemini
	Cursor = hookwire.Cursor
)

// Agents lists every agent in display order.
var Agents = hookwire.Agents

// ParseAgent accepts only the agents above.
func ParseAgent(s string) (Agent, error) { return hookwire.ParseAgent(s) }

// Scope says whose configuration an install writes.
type Scope string

const (
	// User is the person's own config files.
	User Scope = "user"
	// System is the machine's managed settings, which a repository's own
	// settings cannot switch off.
	System Scope = "system"
)

// ParseScope accepts only the scopes above.
func ParseScope(s string) (Scope, error) {
	switch Scope(s) {
	case User, System:
		return Scope(s), nil
	}
	return "", fmt.Errorf("unknown scope %q; use user or system", s)
}

// Env is where an agent's files live. Tests point it at temp dirs.
type Env struct {
	Home   string
	Getenv func(string) string
	// Root prefixes the machine-wide paths (/etc/…); empty means "/".
	Root string
}

// FromOS reads the real HOME and environment.
func FromOS() (Env, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return Env{}, fmt.Errorf("find home directory: %w", err)
	}
	return Env{Home: home, Getenv: os.Getenv}, nil
}

func (e Env) env(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

func (e Env) system(p string) string { return filepath.Join(e.root(), p) }

func (e Env) root() string {
	if e.Root == "" {
		return "/"
	}
	return e.Root
}

// Wiring is what the entries point at.
type Wiring struct {
	// Binary is the absolute path of the gatehouse binary.
	Binary string
	// Hook is the absolute path of the binary the hooks run: the
	// stand-alone helper where one is installed beside Binary (it starts
	// in a millisecond, and every tool call of the agent starts it), or
	// "" for Binary itself.
	Hook string
	// DataDir is the daemon's data directory.
	DataDir string
}

func (w Wiring) check() error {
	if !filepath.IsAbs(w.Binary) || !filepath.IsAbs(w.DataDir) || (w.Hook != "" && !filepath.IsAbs(w.Hook)) {
		return fmt.Errorf("the gatehouse binary and data directory must be absolute paths (got %q and %q)", w.Binary, w.DataDir)
	}
	return nil
}

// mcpArgs are the bridge's arguments for agent a.
func (w Wiring) mcpArgs(a Agent) []any {
	return []any{"mcp", "--data", w.DataDir, "--agent", string(a)}
}

// hookCommand is the shell command line each agent runs as its hook. The
// hook answers (with a block) a little before the agent's own timeout
// would kill it, so a card may wait up to that long for the person.
func (w Wiring) hookCommand(a Agent) string {
	bin := w.Hook
	if bin == "" {
		bin = w.Binary
	}
	return shellQuote(bin) + " hook " + string(a) + " --data " + shellQuote(w.DataDir) + " --timeout " + hookAnswerWithin
}

// hookAnswerWithin is the hooks' --timeout: inside the 600 s each agent is
// told to give them.
const hookAnswerWithin = "590s"

// toolTimeoutSeconds is how long an agent waits for one MCP tool call: a
// card may wait for the person (the approval timeout is 120 s), and long
// builds run.
const toolTimeoutSeconds = 600

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:@%=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// isOurHook recognises a hook command Gatehouse wrote for agent a, whatever
// binary path or data dir it named (the binary may have moved since).
func isOurHook(cmd string, a Agent) bool {
	i := strings.Index(cmd, " hook "+string(a)+" ")
	if i < 0 || !strings.Contains(cmd[i:], " --data ") {
		return false
	}
	bin := strings.Trim(cmd[:i], `'"`)
	return strings.HasPrefix(filepath.Base(bin), "gatehouse")
}

// format of a config file.
type format int

const (
	formatJSON format = iota
	formatJSONC
	formatTOML
)

// target is one config file an install touches.
type target struct {
	Path   string
	Format format
	// Perm is the mode of a file install creates.
	Perm fs.FileMode
}

// files maps a target's path to its content; a missing key is an absent
// file.
type files map[string][]byte

// definition is one agent's wiring.
type definition interface {
	targets(env Env, scope Scope) []target
	// add returns every target's content with Gatehouse's entries added.
	add(env Env, scope Scope, w Wiring, cur files) (files, error)
	// strip returns every target's content with only Gatehouse's entries
	// removed.
	strip(env Env, scope Scope, cur files) (files, error)
	// wired reports whether the hooks are in place.
	wired(env Env, scope Scope, cur files) bool
}

func definitionOf(a Agent) definition {
	switch a {
	case Claude:
		return claudeDef{}
	case Codex:
		return codexDef{}
	case Gemini:
		return geminiDef{}
	case Cursor:
		return cursorDef{}
	}
	return nil
}
