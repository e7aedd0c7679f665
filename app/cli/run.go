package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http/httptrace"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/gatehouse-dev/gatehouse/app/client"
	"github.com/gatehouse-dev/gatehouse/backend/agentprofile"
	"github.com/gatehouse-dev/gatehouse/backend/config"
	"github.com/gatehouse-dev/gatehouse/backend/confined"
	"github.com/gatehouse-dev/gatehouse/backend/datadir"
	"github.com/gatehouse-dev/gatehouse/backend/launcher"
	"github.com/gatehouse-dev/gatehouse/sandbox/agentbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/toolchain"
)

func init() {
	register(func(g *Globals) *cobra.Command {
		var profileName, workspace string
		var fromLauncher bool
		var ports []int
		cmd := &cobra.Command{
			Use:   "run [--profile NAME] (claude|codex|gemini [ARG…] | -- CMD [ARG…])",
			Short: "Run an agent confined for its whole life: it and everything it starts",
			Long: `gatehouse run starts an agent (or any command) inside a sandbox that lasts as
long as it does: the agent process, the MCP servers and language servers it
starts, and their children. The project you start it in is writable (its
protected files read-only, its secrets hidden); your home's secrets are out
of sight; the agent keeps a home of its own in Gatehouse's data dir, its
state directory writable and its settings, hooks and plugins read-only;
the network is reached only through Gatehouse's proxy, where the agent's
model API needs no card. Its hooks and Gatehouse's MCP tools still reach
the daemon, so its shell commands run in sandboxes of their own, with
checkpoints and cards. The terminal passes through; the exit status is
the agent's. The kill switch ends the whole tree.

  gatehouse run claude            Claude Code with its profile
  gatehouse run codex exec …      Codex
  gatehouse run -- make test      any command, no profile
  gatehouse run --publish 5173 claude
                                  a dev server the agent starts on port
                                  5173 is at http://127.0.0.1:5173

The daemon must be running: nothing starts without it.`,
			Args: func(_ *cobra.Command, args []string) error {
				if len(args) == 0 {
					return userErrorf(nil, "name what to run: gatehouse run claude (or codex, gemini) for an agent with its profile, or gatehouse run -- COMMAND for any command")
				}
				return nil
			},
			RunE: func(cmd *cobra.Command, args []string) error {
				name := profileName
				if name == "" && cmd.ArgsLenAtDash() != 0 {
					// `gatehouse run claude …`: the first word names the profile.
					if _, ok := agentprofile.Lookup(args[0]); !ok {
						return userErrorf(nil, "Gatehouse has no profile for %q (it has %s); to confine a plain command, put it after --: gatehouse run -- %s", args[0], strings.Join(agentprofile.Names(), ", "), strings.Join(args, " "))
					}
					name = args[0]
				}
				if err := checkPorts(ports); err != nil {
					return err
				}
				if fromLauncher {
					if _, inside := agentbox.ReadRunInfo(); inside {
						return execInRun(args)
					}
				}
				if !cmd.Flags().Changed("publish") {
					// A launcher takes no flags of its own: the agent's name
					// is typed, so its ports come from the environment.
					fromEnv, err := publishedFromEnv(os.Getenv(publishEnv))
					if err != nil {
						return err
					}
					ports = fromEnv
				}
				return runConfined(cmd.Context(), g, runOptions{name: name, workspace: workspace, ports: ports}, args, cmd.Flags().Changed("log-level"))
			},
		}
		cmd.Flags().StringVar(&profileName, "profile", "", "run the command after -- with this agent's profile (claude, codex, gemini)")
		cmd.Flags().StringVar(&workspace, "workspace", "", "the project to work in (default: the current directory's)")
		cmd.Flags().IntSliceVar(&ports, "publish", nil, "make a server the agent starts on this port inside reachable at http://127.0.0.1:PORT on this machine (repeatable)")
		// --launcher: started by a launcher (`gatehouse install NAME
		// --confine`), which may be typed inside a confined run too.
		cmd.Flags().BoolVar(&fromLauncher, "launcher", false, "")
		_ = cmd.Flags().MarkHidden("launcher")
		cmd.Flags().SetInterspersed(false)
		return cmd
	})
}

// runConfined starts argv confined with profile name ("" for none) and
// returns its exit status as an exitCodeError. The terminal is the
// agent's: what Gatehouse found is said only when a log level was asked
// for (verbose), its warnings always.
func runConfined(ctx context.Context, g *Globals, o runOptions, argv []string, verbose bool) error {
	name, workspace := o.name, o.workspace
	id := os.Getenv("GATEHOUSE_RUN")
	if ri, ok := agentbox.FindRunInfo(); ok {
		id = ri.Run
	}
	if id != "" {
		return userErrorf(nil, "this shell is already inside a confined run (%s); run %s directly, it is confined already", id, argv[0])
	}
	var profile *agentprofile.Resolved
	home, _ := os.UserHomeDir()
	if name != "" {
		p, ok := agentprofile.Lookup(name)
		if !ok {
			return userErrorf(nil, "--profile %q: Gatehouse has profiles for %s", name, strings.Join(agentprofile.Names(), ", "))
		}
		if why := p.Unconfined(argv[1:]); why != "" && filepath.Base(argv[0]) == p.Binary {
			return userErrorf(nil, "%s, so nothing was started", why)
		}
		r, err := p.Resolve(os.Getenv, home)
		if err != nil {
			return userErrorf(err, "%v", err)
		}
		profile = &r
	}
	// Never a launcher: the one that started this run would start it again.
	program, err := launcher.LookPath(argv[0], os.Getenv("PATH"))
	if err != nil {
		if profile != nil {
			return userErrorf(err, "%s is not installed here (no %s on your PATH), so nothing was started", name, argv[0])
		}
		return userErrorf(err, "%s was not found on your PATH, so nothing was started", argv[0])
	}
	cfg, err := loadConfig(g)
	if err != nil {
		return err
	}
	dir, err := dataDir(g, cfg.Data)
	if err != nil {
		return err
	}
	port, err := daemonPort(dir)
	if err != nil {
		return err
	}
	cwd := workspace
	if cwd == "" {
		if cwd, err = os.Getwd(); err != nil {
			return userErrorf(err, "the current directory cannot be read (was it removed?), so nothing was started; cd into your project and run it again")
		}
	}
	if cwd, err = filepath.Abs(cwd); err != nil {
		return err
	}
	// The sandbox shows the project at its real path, as getcwd names it:
	// a link on the way (a shell in ~/src, a link to /data/src) is
	// followed here.
	if real, err := filepath.EvalSymlinks(cwd); err == nil {
		cwd = real
	}
	c := client.New(dir)
	req := confined.Request{Argv: argv, Cwd: cwd, Backend: cfg.Sandbox.Backend, Published: o.ports}
	var named []string
	if profile != nil {
		req.Agent, req.Domains = profile.Name, profile.Domains
		named = namedDirs(profile.Profile, argv, cwd)
		req.Dirs, req.DirsNamedBy = askableDirs(named, home, dir), "named by "+profile.Name+"'s own flags"
		if a, ok := cfg.Agents[profile.Name]; ok && a.Domains != nil {
			req.Domains = a.Domains
		}
	}
	log := g.Logger()
	if !verbose {
		log = slog.New(slog.NewTextHandler(g.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	// The sandbox's first process is the long pole: it starts first, in
	// namespaces of its own where its runtime readies itself while the
	// daemon opens the run and this process finds the toolchains; its
	// root waits for the layout (nothing of the agent's runs before it).
	// A run that does not start ends it. Without a terminal the sandbox
	// leads a process group of its own (interrupt.go).
	// Taken before the daemon opens the run, so a port in use starts
	// nothing and leaves no session behind.
	_, knownLandlock, _ := runBackend(cfg.Sandbox.Backend)
	pub, err := publish(o.ports, knownLandlock)
	if err != nil {
		return err
	}
	defer pub.close()
	ownGroup := !hasTerminal()
	prepared := make(chan *agentbox.Early, 1)
	go func() { prepared <- prepareSandbox(cfg.Sandbox, port, ownGroup) }()
	takeEarly := sync.OnceValue(func() *agentbox.Early { return <-prepared })
	defer func() { takeEarly().Discard() }()
	answered, wrote := startRunAsync(ctx, g, c, req)
	<-wrote
	type found struct {
		tc  toolchain.Set
		err error
	}
	toolchains := make(chan found, 1)
	go func() {
		tc, err := findToolchains(g, cfg.Sandbox, log)
		toolchains <- found{tc, err}
	}()
	a := <-answered
	started, err := a.started, a.err
	if err != nil {
		return err
	}
	// Confined as the daemon says: with the auto backend, the way it chose
	// for commands.
	cfg.Sandbox.Backend = orDefault(started.Backend, cfg.Sandbox.Backend)
	tcf := <-toolchains
	tc, err := tcf.tc, tcf.err
	if err != nil {
		notStarted(c, started.ID, err)
		return err
	}
	spec, err := confinedSpec(runLayout{
		dataDir: dir, cfg: cfg, profile: profile, program: program, argv: argv, cwd: cwd,
		workspaces: started.Workspaces, gitDirs: started.GitDirs, runID: started.ID, agentPort: port, toolchains: tc.ReadOnly, early: takeEarly(), dirs: named,
		tmp: started.Tmp, nodeOptions: nodeOptionsOf(tc.Env),
	})
	if err != nil {
		notStarted(c, started.ID, err)
		return err
	}
	spec.OwnGroup = ownGroup
	if started.HandSocket != "" {
		// Host ports' connections go to the daemon as the proxy's do.
		spec.HostPorts = started.HostPorts
	}
	pub.announce(spec.Landlock, g.Stderr)
	spec.Publish = len(o.ports) > 0
	// A terminal's signals go to the agent (it is in this process group);
	// this process outlives them to report its status, and passes on one
	// sent to it alone, or any without a terminal (passOn). They are
	// caught, not ignored: an ignored signal stays ignored across exec,
	// and the agent would never see its Ctrl-C.
	interrupts := make(chan os.Signal, 4)
	signal.Notify(interrupts, syscall.SIGINT, syscall.SIGQUIT)
	defer signal.Stop(interrupts)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(stop)
	box, err := agentbox.Start(ctx, spec)
	if err != nil {
		notStarted(c, started.ID, err)
		return userErrorf(err, "the confined run did not start: %v", err)
	}
	go func() {
		for s := range interrupts {
			passOn(s.(syscall.Signal), box.Group())
		}
	}()
	dialer := func(sock string) func() (net.Conn, error) {
		return func() (net.Conn, error) { return net.Dial("unix", sock) }
	}
	label := func(conn net.Conn) string { return "process=" + box.Process(conn) }
	if started.HandSocket != "" {
		// The proxy's connections go to the daemon themselves.
		hand := func() (*net.UnixConn, error) {
			return net.DialUnix("unixpacket", nil, &net.UnixAddr{Name: started.HandSocket, Net: "unixpacket"})
		}
		go agentbox.Hand(box.Proxy, hand, label)
		for port, lns := range box.Hosts {
			hostLabel := func(conn net.Conn) string { return fmt.Sprintf("host=%d %s", port, label(conn)) }
			for _, ln := range lns {
				go agentbox.Hand(ln, hand, hostLabel)
			}
		}
	} else {
		go agentbox.Forward(box.Proxy, dialer(started.ProxySocket), label)
	}
	go agentbox.Forward(box.Agent, dialer(started.AgentSocket), nil)
	pub.serve(box)
	ended := make(chan confined.Ended, 1)
	waitCtx, stopWait := context.WithCancel(ctx)
	defer stopWait()
	go func() {
		var e confined.Ended
		if err := c.Get(waitCtx, "/api/v1/runs/"+started.ID+"/wait", nil, &e); err != nil {
			if waitCtx.Err() != nil {
				return
			}
			// The daemon went away: nothing the agent asks can be decided.
			e = confined.Ended{Reason: "the Gatehouse daemon stopped"}
		}
		ended <- e
	}()
	go func() {
		select {
		case e := <-ended:
			select {
			case <-box.Done():
				return // the agent ended first; its end ended the session
			default:
			}
			fmt.Fprintf(g.Stderr, "\r\ngatehouse: the confined run was stopped: %s\r\n", orDefault(e.Reason, "Gatehouse ended its session"))
			box.Kill()
		case s := <-stop:
			log.Info("stopping the confined run", "signal", s.String())
			box.Kill()
		case <-box.Done():
		}
	}()
	code, waitErr := box.Wait()
	for _, v := range box.Violations() {
		fmt.Fprintf(g.Stderr, "\r\ngatehouse: the confined run was stopped: %s\r\n", v.Detail)
	}
	// Said before the wait is dropped, which alone would end the run as
	// gone without a status. The daemon then removes the run's redacted
	// copies, after its answer; when it cannot be told, this process does.
	closed, err := endRun(c, started.ID, code)
	if err != nil {
		_ = os.RemoveAll(runRedacted(dir, started.ID))
	}
	if closed.Warning != "" {
		fmt.Fprintf(g.Stderr, "\r\ngatehouse: %s\r\n", closed.Warning)
	}
	stopWait()
	if waitErr != nil {
		return userErrorf(waitErr, "the confined run failed: %v", waitErr)
	}
	if code != 0 {
		return exitCodeError{code}
	}
	return nil
}

// runOptions are `gatehouse run`'s flags.
type runOptions struct {
	// name is the agent's profile, "" for none.
	name, workspace string
	// ports are published on this machine's loopback (runpublish.go).
	ports []int
}

// execInRun replaces this process with the agent argv names, found on PATH
// past every launcher: a launcher typed inside a confined run (the agent
// starting another of itself) needs no run of its own, it is confined
// already. Only the run's file, which nothing outside a sandbox can
// write, says so; GATEHOUSE_RUN alone is refused as a nested run.
func execInRun(argv []string) error {
	program, err := launcher.LookPath(argv[0], os.Getenv("PATH"))
	if err != nil {
		return userErrorf(err, "%s is not installed in this confined run (no %s on its PATH besides Gatehouse's launcher), so nothing was started", argv[0], argv[0])
	}
	if err := syscall.Exec(program, argv, os.Environ()); err != nil {
		return userErrorf(err, "%s did not start: %v", program, err)
	}
	return nil
}

// runAnswer is the daemon's answer to a run's opening.
type runAnswer struct {
	started confined.Started
	err     error
}

// startRunAsync asks the daemon for the run in the background. wrote is
// closed once the request has left (or failed), answered then carries the
// answer.
func startRunAsync(ctx context.Context, g *Globals, c *client.Client, req confined.Request) (answered <-chan runAnswer, wrote <-chan struct{}) {
	out := make(chan runAnswer, 1)
	sent := make(chan struct{})
	var once sync.Once
	done := func() { once.Do(func() { close(sent) }) }
	go func() {
		s, err := startRun(ctx, g, c, req, done)
		done()
		out <- runAnswer{s, err}
	}()
	return out, sent
}

// startRun asks the daemon for the run, calling wrote once the request
// has left, and saying what it waits for when it takes a while: the
// person's answer to a workspace card, or the project's first checkpoint.
func startRun(ctx context.Context, g *Globals, c *client.Client, req confined.Request, wrote func()) (confined.Started, error) {
	var started confined.Started
	stop := sayWhatTheRunWaitsFor(ctx, g, c, req.Cwd)
	// The client's transport says when this request, and no other, is
	// written.
	traced := httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { wrote() }})
	err := c.Post(traced, "/api/v1/runs", req, &started)
	stop()
	if errors.Is(err, client.ErrNoDaemon) {
		return started, userErrorf(err, "the Gatehouse daemon is not running, so nothing was started; start it with `gatehouse serve` (or open the Gatehouse app)")
	}
	if err != nil && ctx.Err() != nil {
		// Interrupted while the daemon opened the run (a card, the
		// first checkpoint): the daemon ends the half-opened run.
		return started, userErrorf(err, "stopped before the run started, so nothing was started")
	}
	if err != nil {
		return started, apiErr(err)
	}
	return started, nil
}

// prepareSandbox starts the run's sandbox ahead of its layout when it
// will be one whose first process makes it (bubblewrap's backend, not a
// container's or Landlock's), nil otherwise or when it cannot.
func prepareSandbox(sb config.Sandbox, port int, ownGroup bool) *agentbox.Early {
	if sb.Backend == "container" {
		return nil
	}
	if _, onLandlock, err := runBackend(sb.Backend); err != nil || onLandlock {
		return nil
	}
	first, err := firstProcess()
	if err != nil {
		return nil
	}
	return agentbox.Prepare(agentbox.Spec{Init: first, AgentPort: port, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, OwnGroup: ownGroup})
}

// endRun tells the daemon how the agent ended; a daemon that is gone
// needs no telling, and the error says it was not told.
func endRun(c *client.Client, id string, code int) (confined.Closed, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var closed confined.Closed
	err := c.Post(ctx, "/api/v1/runs/"+id+"/end", map[string]int{"exit": code}, &closed)
	return closed, err
}

// notStarted tells the daemon the run's agent never started, and why,
// so its session says so rather than that the agent exited.
func notStarted(c *client.Client, id string, why error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = c.Post(ctx, "/api/v1/runs/"+id+"/end", map[string]any{"exit": -1, "not_started": why.Error()}, nil)
}

// daemonPort is the running daemon's TCP port, where the agent's
// installed MCP entry points: inside the run the same port leads to the
// run's own listener.
func daemonPort(dir string) (int, error) {
	b, err := os.ReadFile(filepath.Join(dir, datadir.AddrFile))
	if err != nil {
		return 0, userErrorf(err, "the Gatehouse daemon is not running for %s, so nothing was started; start it with `gatehouse serve` (or open the Gatehouse app)", dir)
	}
	_, p, err := net.SplitHostPort(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, fmt.Errorf("read the daemon's address: %w", err)
	}
	return strconv.Atoi(p)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
