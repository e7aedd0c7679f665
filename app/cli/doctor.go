package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/gatehouse-dev/gatehouse/app/client"
	"github.com/gatehouse-dev/gatehouse/backend/config"
	"github.com/gatehouse-dev/gatehouse/sandbox/agentbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/choose"
	"github.com/gatehouse-dev/gatehouse/sandbox/landlock"
	"github.com/gatehouse-dev/gatehouse/sandbox/proof"
	"github.com/gatehouse-dev/gatehouse/sandbox/toolchain"
)

type doctorFlags struct {
	backend      string
	containerCLI string
	image        string
	globalArgs   []string
	runArgs      []string
}

func init() {
	register(func(g *Globals) *cobra.Command {
		f := &doctorFlags{}
		cmd := &cobra.Command{
			Use:   "doctor",
			Short: "Prove on this machine that the sandbox refuses what it must",
			Long: "doctor runs real escape attempts (read a canary in $HOME, write outside the workspace\n" +
				"and into .git/hooks, reach 127.0.0.1, read host secrets, fork-bomb, outlive a kill,\n" +
				"find the toolchains on your PATH read-only, read ~/.ssh and the like)\n" +
				"under every sandbox backend available here and prints one row per attempt.\n" +
				"A second table runs probes as `gatehouse run` starts a confined agent (its home\n" +
				"canary, writes, the network but its proxy, a server it detaches, its settings,\n" +
				"TIOCSTI into its terminal, the end of a daemonised grandchild).\n" +
				"It exits non-zero if the selected backend, or whole-agent mode, fails any row.",
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, args []string) error { return runDoctor(cmd, g, f) },
		}
		fl := cmd.Flags()
		fl.StringVar(&f.backend, "backend", "auto", "backend that must pass: auto, bwrap, landlock, seatbelt, container, none")
		fl.StringVar(&f.containerCLI, "container-cli", "podman", "container CLI: docker or podman")
		fl.StringVar(&f.image, "container-image", "", "image for the container backend (it is tested only when set)")
		fl.StringArrayVar(&f.globalArgs, "container-global-arg", nil, "flag passed before every container CLI subcommand (repeatable)")
		fl.StringArrayVar(&f.runArgs, "container-run-arg", nil, "extra flag for the container `run` (repeatable)")
		return cmd
	})
}

func runDoctor(cmd *cobra.Command, g *Globals, f *doctorFlags) error {
	ctx := cmd.Context()
	// Refused before the battery runs, which takes a while.
	if err := oneOf("--backend", f.backend, config.Backends, false); err != nil {
		return err
	}
	// Backend chatter would interleave with the table; keep warnings only.
	log := slog.New(slog.NewTextHandler(g.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	// The configured backend is the one that must pass, unless a flag says
	// otherwise.
	cfg, err := loadConfig(g)
	if err != nil {
		return err
	}
	opts := chooseOptions(cfg.Sandbox)
	changed := cmd.Flags().Changed
	if !changed("backend") && cfg.Sandbox.Backend != "" {
		f.backend = cfg.Sandbox.Backend
	}
	if changed("container-cli") || opts.Container.CLI == "" {
		opts.Container.CLI = f.containerCLI
	}
	if changed("container-image") {
		opts.Container.Image = f.image
	}
	if changed("container-global-arg") {
		opts.Container.GlobalArgs = f.globalArgs
	}
	if changed("container-run-arg") {
		opts.Container.RunArgs = f.runArgs
	}
	// Whole-agent mode in a container is tested with the same flags.
	cfg.Sandbox.ContainerCLI, cfg.Sandbox.ContainerArgs, cfg.Sandbox.ContainerRun = opts.Container.CLI, opts.Container.GlobalArgs, opts.Container.RunArgs

	tc, err := doctorToolchains(cmd, g, cfg, log)
	if err != nil {
		return err
	}
	po := proof.Options{Logger: log, Toolchains: tc}
	// The probes' copies of your git config, gone with them.
	if shown, err := os.MkdirTemp("", "gatehouse-doctor-"); err == nil {
		defer os.RemoveAll(shown)
		opts.Shown = shown
	}
	selected, selErr := choose.New(ctx, f.backend, opts, log)
	selectedName := f.backend
	if selErr == nil {
		selectedName = selected.Name()
	}

	var rows []proof.Row
	tested := map[string]bool{}
	statuses := choose.Available(ctx, opts, log)
	for _, st := range statuses {
		if !st.Available {
			rows = append(rows, proof.Row{Backend: st.Name, Check: "-", Outcome: proof.Unavailable, Reason: st.Reason})
			continue
		}
		fmt.Fprintf(g.Stderr, "gatehouse doctor: testing %s…\n", st.Name)
		rows = append(rows, proof.Run(ctx, st.Backend, po)...)
		tested[st.Name] = true
	}
	if selErr == nil && !tested[selectedName] {
		// "none" is never probed by Available; test it when it is chosen.
		rows = append(rows, proof.Run(ctx, selected, po)...)
	}
	printDoctorTable(g.Stdout, rows, selectedName)
	dir, err := dataDir(g, cfg.Data)
	if err != nil {
		return err
	}
	runRows := doctorRunRows(ctx, g, cfg, dir, tc, statuses)
	fmt.Fprintln(g.Stdout)
	fmt.Fprintln(g.Stdout, "Whole-agent mode (gatehouse run): each probe started as `gatehouse run` starts an agent")
	printRowTable(g.Stdout, runRows, "")
	agents := doctorAgents(ctx, dir)
	fmt.Fprintln(g.Stdout)
	printAgentRows(g.Stdout, agents)
	fmt.Fprintln(g.Stdout)
	printDoctorPublic(ctx, g.Stdout, dir)
	fmt.Fprintln(g.Stdout)
	printDoctorHostPorts(ctx, g.Stdout, cfg.Network.HostPorts, cfg.Network.On())

	if selErr != nil {
		return userErrorf(selErr, "the selected sandbox backend %q cannot run here: %v", f.backend, selErr)
	}
	if doctorFailed(rows, selectedName) {
		fmt.Fprintf(g.Stderr, "gatehouse: the %s sandbox failed a check above; do not rely on it until every row passes.\n", selectedName)
		return exitCodeError{code: 1}
	}
	if doctorFailed(runRows, runBackendName(selectedName)) {
		fmt.Fprintln(g.Stderr, "gatehouse: whole-agent mode failed a check above; do not rely on `gatehouse run` until every row passes.")
		return exitCodeError{code: 1}
	}
	if agentRowsFailed(agents) {
		fmt.Fprintln(g.Stderr, "gatehouse: an installed agent failed a check above; its own tools are not safely routed through Gatehouse until every row passes.")
		return exitCodeError{code: 1}
	}
	return nil
}

// doctorToolchains are the toolchains the running daemon shows its
// sandboxes (its PATH, not this shell's, decides what commands find);
// with no daemon running, the ones a daemon started from here would show,
// and the doctor says so.
func doctorToolchains(cmd *cobra.Command, g *Globals, cfg config.Config, log *slog.Logger) (toolchain.Set, error) {
	dir, err := dataDir(g, cfg.Data)
	if err != nil {
		return toolchain.Set{}, err
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), 5*time.Second)
	defer cancel()
	var st struct {
		PID        int            `json:"pid"`
		Toolchains *toolchain.Set `json:"toolchains"`
	}
	err = client.New(dir).Get(ctx, "/api/v1/status", nil, &st)
	switch {
	case err == nil && st.Toolchains != nil:
		fmt.Fprintf(g.Stderr, "gatehouse doctor: checking the toolchains the running daemon (pid %d) shows its sandboxes.\n", st.PID)
		for _, n := range st.Toolchains.Notes {
			fmt.Fprintf(g.Stderr, "gatehouse doctor: the daemon says: %s\n", n)
		}
		return *st.Toolchains, nil
	case err == nil:
		fmt.Fprintf(g.Stderr, "gatehouse doctor: the running daemon (pid %d) does not say which toolchains it shows (an older version); checking the ones this shell's PATH gives instead.\n", st.PID)
	default:
		fmt.Fprintln(g.Stderr, "gatehouse doctor: no daemon is running, so checking the toolchains this shell's PATH would give a daemon started here; a daemon started elsewhere (a service, another shell) may see others.")
	}
	return findToolchains(g, cfg.Sandbox, log)
}

// doctorFailed reports whether the selected backend failed a row.
func doctorFailed(rows []proof.Row, selected string) bool {
	for _, r := range rows {
		if r.Backend == selected && r.Outcome == proof.Fail {
			return true
		}
	}
	return false
}

func printDoctorTable(w io.Writer, rows []proof.Row, selected string) {
	printRowTable(w, rows, selected)
	fmt.Fprintln(w, "* selected backend")
}

// printRowTable prints rows, the selected backend's marked.
func printRowTable(w io.Writer, rows []proof.Row, selected string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "BACKEND\tCHECK\tRESULT\tREASON")
	for _, r := range rows {
		name := r.Backend
		if name == selected {
			name += " *"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", name, r.Check, r.Outcome, r.Reason)
	}
	_ = tw.Flush()
}

// doctorRunRows are the whole-agent rows: the battery run as `gatehouse
// run` lays out a plain command (this binary its first process), on each
// backend whole-agent mode has that is available (bubblewrap, Landlock,
// the container), and a row saying why not for every other backend.
func doctorRunRows(ctx context.Context, g *Globals, cfg config.Config, dir string, tc toolchain.Set, statuses []choose.BackendStatus) []proof.Row {
	var rows []proof.Row
	for _, st := range statuses {
		switch {
		case !slices.Contains(proof.ConfinedBackends, st.Name) && st.Name != "container":
			rows = append(rows, proof.Row{Backend: st.Name, Check: "-", Outcome: proof.Unavailable,
				Reason: "whole-agent mode is built on bubblewrap, Landlock and the container; `gatehouse run` does not use " + st.Name + " yet"})
		case !st.Available:
			rows = append(rows, proof.Row{Backend: st.Name, Check: "-", Outcome: proof.Unavailable, Reason: st.Reason})
		default:
			fmt.Fprintf(g.Stderr, "gatehouse doctor: testing whole-agent mode (%s)…\n", st.Name)
			rows = append(rows, proof.RunConfined(ctx, doctorRunOptions(cfg, st.Name, dir, tc))...)
		}
	}
	return rows
}

// runBackendName is the backend a run confined with the sandbox backend
// name uses (see runBackend), for the rows that must pass.
func runBackendName(name string) string {
	if name == "container" {
		return name
	}
	if _, onLandlock, err := runBackend(name); err == nil && onLandlock {
		return landlock.Name
	}
	return "bwrap"
}

// doctorRunOptions lay the battery's runs out with confinedSpec, as
// `gatehouse run -- sh` would be on backend in the battery's workspace.
func doctorRunOptions(cfg config.Config, backend, dir string, tc toolchain.Set) proof.ConfinedOptions {
	cfg.Sandbox.Backend = backend
	o := proof.ConfinedOptions{Backend: backend}
	o.Home, _ = os.UserHomeDir()
	if self, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(self); err == nil {
			o.Init = real
		}
	}
	cfg.Sandbox.Backend = backend
	// Each probe is a run of its own in the same workspace: what a run
	// says before it starts is said once.
	notices := &onceEach{w: os.Stderr}
	o.Layout = func(ws string) (agentbox.Spec, error) {
		return confinedSpec(runLayout{dataDir: dir, cfg: cfg, program: "/bin/sh", argv: []string{"/bin/sh"}, cwd: ws,
			workspaces: []string{ws}, runID: "doctor", agentPort: 1, toolchains: tc.ReadOnly, notices: notices})
	}
	return o
}

// onceEach passes each distinct write to w once.
type onceEach struct {
	w    io.Writer
	mu   sync.Mutex
	seen map[string]bool
}

func (o *onceEach) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.seen[string(p)] {
		return len(p), nil
	}
	if o.seen == nil {
		o.seen = map[string]bool{}
	}
	o.seen[string(p)] = true
	return o.w.Write(p)
}
