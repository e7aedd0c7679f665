// Package config loads the daemon's TOML config file. Flags override it;
// unknown keys are an error that names the key, so a typo never silently
// weakens a setting.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/gatehouse-dev/gatehouse/backend/agentprofile"
	"github.com/gatehouse-dev/gatehouse/backend/policy"
	"github.com/gatehouse-dev/gatehouse/backend/secrets"
	"github.com/gatehouse-dev/gatehouse/backend/sentence"
	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// DefaultListen is the loopback address the daemon binds by default.
const DefaultListen = "127.0.0.1:7465"

// Config is the whole config file. Every section belongs to one part of
// the daemon; zero values mean "use the default".
type Config struct {
	Listen     string     `toml:"listen"`
	Data       string     `toml:"data"`
	Workspaces Workspaces `toml:"workspaces"`
	// Public is the old top-level `public = true` (the whole daemon on a
	// non-loopback address, as --public). It is read by Parse from that
	// form; the [public] table is Exposures.
	Public bool `toml:"-"`
	// Exposures tune `gatehouse public start` ([public]).
	Exposures      Exposures `toml:"public"`
	AllowedOrigins []string  `toml:"allowed_origins"`
	MaxConnections int       `toml:"max_connections"`
	Mode           string    `toml:"mode"`

	Sandbox Sandbox `toml:"sandbox"`
	Network Network `toml:"network"`
	// Secret entries are injected into matching commands and redacted
	// from everything that leaves the daemon.
	Secret    []secrets.Secret `toml:"secret"`
	Limits    Limits           `toml:"limits"`
	Snapshots Snapshots        `toml:"snapshots"`
	// ApprovalTimeoutS denies unanswered approvals after this many seconds.
	ApprovalTimeoutS int `toml:"approval_timeout_s"`
	// MaxPendingPerSession caps the cards one session has waiting; calls
	// over it fail at once.
	MaxPendingPerSession int `toml:"max_pending_per_session"`
	// Agents tune `gatehouse run NAME` per agent profile.
	Agents map[string]Agent `toml:"agents"`
	// Export sends the audit to a collector and/or an OCSF file.
	Export Export `toml:"export"`
}

// Exposures tune going public ([public]).
type Exposures struct {
	// Tunnel is a program Gatehouse starts with every exposure and stops
	// with it, e.g. ["mytunnel", "http", "{port}"]: {addr}, {host} and
	// {port} name the exposure's listener. Its public URL is read from
	// its output where it prints one. A tunnel terminates TLS, so an
	// exposure it carries serves plain HTTP.
	Tunnel []string `toml:"tunnel"`
	// TunnelWaitS is how long to read the tunnel's output for its URL
	// (0: 10 s).
	TunnelWaitS int `toml:"tunnel_wait_s"`
	// LocalWinsMs is how long a decision from a device waits for one made
	// on the computer, which replaces it (0: 20 ms; at most 60000).
	LocalWinsMs int `toml:"local_wins_ms"`
}

// legacyPublic reads a config written with the top-level `public = true`,
// which a [public] table would otherwise clash with.
type legacyPublic struct {
	Config
	Public bool `toml:"public"`
}

// Agent tunes one agent's confined runs ([agents.claude]).
type Agent struct {
	// Domains replace the profile's model API domains (reached without a
	// card; network rules still decide first).
	Domains []string `toml:"domains"`
	// Env are more variables passed in although their names look secret.
	Env []string `toml:"env"`
}

// Workspaces are where agents work without a card.
type Workspaces struct {
	// Roots hold the projects served at once: an agent started in a
	// project below one of them works there; any other project raises a
	// workspace card ("always" adds it here).
	Roots []string `toml:"roots"`
}

// Sandbox picks and tunes the confinement backend.
type Sandbox struct {
	Backend string `toml:"backend"` // auto, bwrap, landlock, seatbelt, container, none
	// Container settings, used when Backend is "container".
	ContainerCLI   string   `toml:"container_cli"` // docker or podman
	ContainerImage string   `toml:"container_image"`
	ContainerArgs  []string `toml:"container_args"`     // extra global CLI args, e.g. --runtime runc
	ContainerRun   []string `toml:"container_run_args"` // extra `run` flags, e.g. --ulimit nofile=1024

	// ExposeSecrets are workspace files on the secret list that commands
	// may read anyway (every other one is hidden from them): paths or
	// patterns relative to a workspace root, e.g. ".env.test",
	// "testdata/*.pem", or "fixtures/" for everything below it.
	ExposeSecrets []string `toml:"expose_secrets"`
	// Path adds directories to the sandbox's PATH, before the daemon's
	// own; the toolchains they hold are shown read-only.
	Path []string `toml:"path"`
	// ReadOnly shows more host directories read-only in every sandbox.
	ReadOnly []string `toml:"read_only"`
	// CacheMiB bounds the build caches of all workspaces together; 0
	// keeps the default, -1 turns the persistent cache off.
	CacheMiB int64 `toml:"cache_mib"`
	// Unstaged runs commands directly in the workspace, their effect
	// checked afterwards, even on a sandbox that can stage them.
	Unstaged bool `toml:"unstaged"`
}

// Limits are per-session budgets; zero keeps the default, -1 disables one.
type Limits struct {
	MaxCalls    int64 `toml:"max_calls"`
	WallMinutes int64 `toml:"wall_minutes"`
	ExecMinutes int64 `toml:"exec_minutes"`
	OutputMiB   int64 `toml:"output_mib"`
	// Tokens bounds the tokens each session's agent spends, read from the
	// agent's own files; 0 (the default) and -1: no token budget.
	Tokens int64 `toml:"tokens"`
}

// Snapshots tunes checkpoints.
type Snapshots struct {
	// Disabled runs mutating calls without checkpoints (audited as such).
	Disabled   bool     `toml:"disabled"`
	Exclude    []string `toml:"exclude"`
	MaxFileMiB int64    `toml:"max_file_mib"`
	BudgetMiB  int64    `toml:"budget_mib"`
}

// DefaultPath is $XDG_CONFIG_HOME/gatehouse/config.toml (or the OS equivalent).
func DefaultPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", sentence.New("Gatehouse finds its config through $HOME (or $XDG_CONFIG_HOME), and neither is set; set HOME, or name the file with --config", err)
	}
	return filepath.Join(dir, "gatehouse", "config.toml"), nil
}

// DefaultDataDir is $XDG_DATA_HOME/gatehouse on Linux and
// ~/Library/Application Support/Gatehouse on macOS.
func DefaultDataDir() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find home dir: %w", err)
	}
	if runtime.GOOS == "darwin" {
		return filepath.Join(home, "Library", "Application Support", "Gatehouse"), nil
	}
	if x := os.Getenv("XDG_DATA_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "gatehouse"), nil
	}
	return filepath.Join(home, ".local", "share", "gatehouse"), nil
}

// Load reads the config file at path. A missing file at the default path is
// not an error (explicit=false); a missing file the user named is.
func Load(path string, explicit bool) (Config, error) {
	var c Config
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && !explicit {
		return c, nil
	}
	if errors.Is(err, os.ErrNotExist) {
		return c, fmt.Errorf("config file %s does not exist; create it or leave out --config: %w", path, err)
	}
	if err != nil {
		return c, fmt.Errorf("cannot read the config file %s: %w", path, err)
	}
	return Parse(b, path)
}

// Parse decodes TOML strictly: unknown keys and type errors name the key and
// line.
func Parse(b []byte, name string) (Config, error) {
	var c Config
	if err := movedKeys(b, name); err != nil {
		return c, err
	}
	dec := toml.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if oldPublic(b) {
		var l legacyPublic
		if err := dec.Decode(&l); err != nil {
			return c, describe(err, name)
		}
		c, c.Public = l.Config, l.Public
	} else if err := dec.Decode(&c); err != nil {
		return c, describe(err, name)
	}
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("%s: %w", name, err)
	}
	return c, nil
}

// Backends are the sandbox backends a config or a flag may name.
var Backends = []string{"auto", "bwrap", "landlock", "seatbelt", "container", "none"}

var validBackends = func() map[string]bool {
	m := map[string]bool{"": true}
	for _, b := range Backends {
		m[b] = true
	}
	return m
}()

// Validate checks values the decoder cannot.
func (c Config) Validate() error {
	if !validBackends[c.Sandbox.Backend] {
		return fmt.Errorf("sandbox.backend %q is not one of auto, bwrap, landlock, seatbelt, container, none", c.Sandbox.Backend)
	}
	if _, err := policy.ParseMode(c.Mode); err != nil {
		return fmt.Errorf("mode: %w", err)
	}
	if c.ApprovalTimeoutS < 0 {
		return fmt.Errorf("approval_timeout_s must be a number of seconds, 0 or more (0 keeps the default), not %d", c.ApprovalTimeoutS)
	}
	if c.MaxPendingPerSession < 0 {
		return fmt.Errorf("max_pending_per_session must be a positive number of cards, got %d", c.MaxPendingPerSession)
	}
	if c.Exposures.TunnelWaitS < 0 {
		return fmt.Errorf("public.tunnel_wait_s must be a number of seconds, 0 or more (0 keeps the default), not %d", c.Exposures.TunnelWaitS)
	}
	if c.Exposures.LocalWinsMs < 0 || c.Exposures.LocalWinsMs > 60000 {
		return fmt.Errorf("public.local_wins_ms must be a number of milliseconds from 0 to 60000 (0 keeps the default), not %d", c.Exposures.LocalWinsMs)
	}
	if len(c.Exposures.Tunnel) > 0 && strings.TrimSpace(c.Exposures.Tunnel[0]) == "" {
		return fmt.Errorf("public.tunnel must start with the program to run, such as [\"mytunnel\", \"{port}\"]")
	}
	if c.MaxConnections < 0 {
		return fmt.Errorf("max_connections must be a whole number, 0 or more (0 keeps the default), not %d", c.MaxConnections)
	}
	if _, err := protect.ParseExposure(c.Sandbox.ExposeSecrets); err != nil {
		return fmt.Errorf("sandbox.expose_secrets: %w; give paths relative to the workspace root", err)
	}
	if c.Sandbox.CacheMiB < -1 {
		return fmt.Errorf("sandbox.cache_mib must be positive, 0 for the default or -1 for no cache, got %d", c.Sandbox.CacheMiB)
	}
	switch c.Sandbox.ContainerCLI {
	case "", "docker", "podman":
	default:
		return fmt.Errorf("sandbox.container_cli %q must be docker or podman", c.Sandbox.ContainerCLI)
	}
	if err := c.Export.validate(); err != nil {
		return err
	}
	listen := c.Listen
	if listen == "" {
		listen = DefaultListen
	}
	if err := c.Network.validate(listen); err != nil {
		return err
	}
	for name := range c.Agents {
		if _, ok := agentprofile.Lookup(name); !ok {
			return fmt.Errorf("[agents.%s]: Gatehouse has no profile for %q; use one of %s", name, name, strings.Join(agentprofile.Names(), ", "))
		}
	}
	return nil
}
