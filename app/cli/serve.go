package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gatehouse-dev/gatehouse/backend/config"
	"github.com/gatehouse-dev/gatehouse/backend/daemon"
	"github.com/gatehouse-dev/gatehouse/backend/datadir"
	"github.com/gatehouse-dev/gatehouse/backend/listen"
	"github.com/gatehouse-dev/gatehouse/backend/policy"
	"github.com/gatehouse-dev/gatehouse/backend/secrets"
	"github.com/gatehouse-dev/gatehouse/backend/session"
	"github.com/gatehouse-dev/gatehouse/backend/snapshot"
	"github.com/gatehouse-dev/gatehouse/frontend"
	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/choose"
	"github.com/gatehouse-dev/gatehouse/sandbox/container"
)

// serveFlags are shared by `serve` and the desktop app.
type serveFlags struct {
	listen     string
	workspaces []string
	public     bool
	origins    []string
	maxConns   int
	mode       string
	queryToken bool
}

func (f *serveFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.listen, "listen", config.DefaultListen, "address to listen on (loopback only unless --public); port 0 picks a free port and writes it to DATA/addr")
	fs.StringArrayVar(&f.workspaces, "workspace", nil, "workspace root: projects below it are served without a card (repeatable; with none, each new project is asked about once)")
	fs.BoolVar(&f.public, "public", false, "allow binding a non-loopback address (tokens are still required)")
	fs.StringArrayVar(&f.origins, "allow-origin", nil, "extra web origin allowed to call the daemon (repeatable)")
	fs.IntVar(&f.maxConns, "max-connections", 256, "cap on concurrent TCP connections")
	fs.StringVar(&f.mode, "mode", "", "default mode for new sessions: "+policy.ModeList()+" (auto when unset)")
	fs.BoolVar(&f.queryToken, "test-only-query-token", false, "TEST ONLY: accept tokens in ?access_token= (for conformance tools that cannot send headers)")
	_ = fs.MarkHidden("test-only-query-token")
}

// options merges config file, defaults and flags (flags win). The config
// is returned too: the CLI builds the sandbox from it.
func (f *serveFlags) options(cmd *cobra.Command, g *Globals) (daemon.Options, config.Config, error) {
	var o daemon.Options
	cfg, err := loadConfig(g)
	if err != nil {
		return o, cfg, err
	}
	changed := func(name string) bool {
		fl := cmd.Flags().Lookup(name)
		return fl != nil && fl.Changed
	}
	o = daemon.Options{
		Listen: f.listen, Public: f.public, MaxConnections: f.maxConns, Mode: f.mode,
		AllowedOrigins: append(cfg.AllowedOrigins, f.origins...), QueryToken: f.queryToken, Version: Version,
	}
	if !changed("listen") && cfg.Listen != "" {
		o.Listen = cfg.Listen
	}
	if !changed("public") && cfg.Public {
		o.Public = true
	}
	if !changed("max-connections") && cfg.MaxConnections > 0 {
		o.MaxConnections = cfg.MaxConnections
	}
	// Before anything is created: a refused start leaves no data dir.
	if err := listen.Check(o.Listen, o.Public); err != nil {
		return o, cfg, userErrorf(err, "%v", err)
	}
	if !changed("mode") && cfg.Mode != "" {
		o.Mode = cfg.Mode
	}
	// One name for each mode in the sessions it starts: "default" (or
	// nothing) is auto.
	mode, err := policy.ParseMode(o.Mode)
	if err != nil {
		return o, cfg, userErrorf(err, "--mode: %v", err)
	}
	o.Mode = string(mode)
	// Workspaces follow the agent: these are only the roots served
	// without a card, and with none every project asks once.
	ws := append(slices.Clone(f.workspaces), cfg.Workspaces.Roots...)
	for _, w := range ws {
		abs, err := cleanWorkspace(w)
		if err != nil {
			return o, cfg, err
		}
		if !slices.Contains(o.Workspaces, abs) {
			o.Workspaces = append(o.Workspaces, abs)
		}
	}
	if o.ConfigPath, err = configFile(g); err != nil {
		return o, cfg, err
	}
	o.DataDir, err = dataDir(g, cfg.Data)
	if err != nil {
		return o, cfg, err
	}
	if err := dataDirOutside(o.DataDir, o.Workspaces); err != nil {
		return o, cfg, err
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return o, cfg, err
	}
	o.PolicyPath = filepath.Join(dir, "gatehouse", "policy.toml")
	o.Secrets = secrets.Config{Secrets: cfg.Secret}
	o.ApprovalTimeout = time.Duration(cfg.ApprovalTimeoutS) * time.Second
	o.Tunnel, o.TunnelWaitS = cfg.Exposures.Tunnel, cfg.Exposures.TunnelWaitS
	o.LocalWins = time.Duration(cfg.Exposures.LocalWinsMs) * time.Millisecond
	o.MaxPendingPerSession = cfg.MaxPendingPerSession
	o.Limits = limits(cfg.Limits)
	o.Export = daemon.ExportOptions{OTLPEndpoint: cfg.Export.OTLPEndpoint, OTLPHeaders: cfg.Export.OTLPHeaders, OCSFFile: cfg.Export.OCSFFile, MaxBacklog: cfg.Export.MaxBacklog}
	o.SnapshotsDisabled = cfg.Snapshots.Disabled
	o.Unstaged = cfg.Sandbox.Unstaged
	o.Snapshots = snapshot.Options{Exclude: cfg.Snapshots.Exclude, MaxFileSize: cfg.Snapshots.MaxFileMiB << 20, BudgetBytes: cfg.Snapshots.BudgetMiB << 20}
	return o, cfg, nil
}

// configFile is --config, or the default config file's path.
func configFile(g *Globals) (string, error) {
	if g.Config != "" {
		return filepath.Abs(g.Config)
	}
	return config.DefaultPath()
}

// loadConfig reads --config, or the default config file when present.
func loadConfig(g *Globals) (config.Config, error) {
	explicit := g.Config != ""
	path, err := configFile(g)
	if err != nil {
		return config.Config{}, err
	}
	cfg, err := config.Load(path, explicit)
	if err != nil {
		return cfg, userErrorf(err, "%v", err)
	}
	return cfg, nil
}

// dataDirOutside refuses a data dir inside a workspace (agents could read
// its tokens with the file tools) or a workspace inside the data dir.
func dataDirOutside(data string, workspaces []string) error {
	real := data
	if r, err := filepath.EvalSymlinks(data); err == nil {
		real = r
	}
	for _, w := range workspaces {
		if within(real, w) || within(w, real) {
			return userErrorf(nil, "the data directory %s and the workspace %s overlap; agents could reach Gatehouse's tokens. Pass a --data outside the workspace", data, w)
		}
	}
	return nil
}

func within(p, root string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// cleanWorkspace resolves a workspace root and refuses roots that would hand
// an agent the whole system.
func cleanWorkspace(w string) (string, error) {
	abs, err := filepath.Abs(w)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", userErrorf(err, "workspace %s does not exist; create it or pass another --workspace", w)
	}
	st, err := os.Stat(real)
	if err != nil || !st.IsDir() {
		return "", userErrorf(err, "workspace %s is not a directory", w)
	}
	home, _ := os.UserHomeDir()
	switch real {
	case "/", "/etc", "/usr", "/bin", "/sbin", "/lib", "/var", "/boot", "/proc", "/sys", "/dev", home:
		return "", userErrorf(nil, "workspace %s is too broad (it resolves to %s); pass a project directory instead", w, real)
	}
	return real, nil
}

// dataDir resolves --data, then the config file, then the default.
func dataDir(g *Globals, fromConfig string) (string, error) {
	d := g.DataDir
	if d == "" {
		d = fromConfig
	}
	if d == "" {
		def, err := config.DefaultDataDir()
		if err != nil {
			return "", err
		}
		d = def
	}
	return filepath.Abs(d)
}

// sandboxBackend picks the confinement backend. It fails closed: a
// configured backend that is missing is an error, never a silent downgrade.
func sandboxBackend(ctx context.Context, sb config.Sandbox, dataDir string, logger *slog.Logger) (sandbox.Backend, error) {
	o := chooseOptions(sb)
	// Containers carry their daemon's identity so a restart can sweep the
	// ones a crash left behind, and only those.
	o.Container.Owner = container.OwnerFor(dataDir)
	o.Shown = filepath.Join(dataDir, datadir.ShownDir)
	b, err := choose.New(ctx, sb.Backend, o, logger)
	if err != nil {
		return nil, userErrorf(err, "the sandbox is not available: %v (run `gatehouse doctor` to see which backends work here)", err)
	}
	// Earlier versions kept spare placeholder links here.
	_ = os.RemoveAll(filepath.Join(dataDir, "placeholders"))
	return b, nil
}

func chooseOptions(sb config.Sandbox) choose.Options {
	var o choose.Options
	o.Container.CLI = sb.ContainerCLI
	o.Container.Image = sb.ContainerImage
	o.Container.GlobalArgs = sb.ContainerArgs
	o.Container.RunArgs = sb.ContainerRun
	return o
}

// prepareServe builds the daemon's options with its sandbox and UI: what
// `serve` and the desktop app both run.
func prepareServe(cmd *cobra.Command, g *Globals, f *serveFlags) (daemon.Options, error) {
	opts, cfg, err := f.options(cmd, g)
	if err != nil {
		return opts, err
	}
	if opts.Public {
		fmt.Fprintln(g.Stderr, "gatehouse: WARNING: --public exposes the daemon beyond this machine. Tokens are still required, but anyone who gets one can run commands here.")
	}
	if opts.QueryToken {
		fmt.Fprintln(g.Stderr, "gatehouse: WARNING: --test-only-query-token accepts tokens in URLs, where they leak into logs and history. Never use it outside tests.")
	}
	opts.Logger = g.Logger()
	sb, err := sandboxBackend(cmd.Context(), cfg.Sandbox, opts.DataDir, opts.Logger)
	if err != nil {
		return opts, err
	}
	opts.Sandbox = sb
	opts.ExposeSecrets = cfg.Sandbox.ExposeSecrets
	if opts.Egress, err = egressProxy(cfg.Network, opts.Logger); err != nil {
		return opts, err
	}
	if opts.RunEnv, err = commandEnv(cmd.Context(), g, cfg.Sandbox, opts.DataDir, opts.Workspaces, opts.Logger); err != nil {
		return opts, err
	}
	opts.UI = frontend.Dist()
	return opts, nil
}

func runServe(cmd *cobra.Command, g *Globals, f *serveFlags) error {
	opts, err := prepareServe(cmd, g, f)
	if err != nil {
		return err
	}
	opts.Ready = func(d *daemon.Daemon) { printNextSteps(g.Stderr, d.Addr().String(), opts) }
	if err := daemon.Run(cmd.Context(), opts); err != nil {
		return serveError(err, opts.Listen)
	}
	return nil
}

func init() {
	register(func(g *Globals) *cobra.Command {
		var f serveFlags
		cmd := &cobra.Command{
			Use:   "serve",
			Short: "Run the Gatehouse daemon headless (no window)",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				return runServe(cmd, g, &f)
			},
		}
		f.add(cmd.Flags())
		return cmd
	})
}

// limits applies the config's budgets over the defaults (-1 disables one).
func limits(c config.Limits) session.Limits {
	l := session.DefaultLimits()
	pick := func(v int64, cur *int64) {
		switch {
		case v < 0:
			*cur = 0
		case v > 0:
			*cur = v
		}
	}
	pick(c.MaxCalls, &l.MaxCalls)
	pick(c.OutputMiB<<20, &l.OutputBytes)
	pick(c.Tokens, &l.Tokens)
	wall, exec := int64(l.Wall/time.Minute), int64(l.ExecTime/time.Minute)
	pick(c.WallMinutes, &wall)
	pick(c.ExecMinutes, &exec)
	l.Wall, l.ExecTime = time.Duration(wall)*time.Minute, time.Duration(exec)*time.Minute
	return l
}
