package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gatehouse-dev/gatehouse/app/agentconn"
	"github.com/gatehouse-dev/gatehouse/app/client"
	"github.com/gatehouse-dev/gatehouse/backend/agentconfig"
	"github.com/gatehouse-dev/gatehouse/backend/agentprofile"
	"github.com/gatehouse-dev/gatehouse/backend/launcher"
	"github.com/gatehouse-dev/gatehouse/sandbox/launch"
)

func init() {
	register(func(g *Globals) *cobra.Command {
		var uninstall, system, confine bool
		cmd := &cobra.Command{
			Use:   "install claude|codex|gemini|cursor",
			Short: "Wire Gatehouse into an agent's own config: its MCP server entry and the hooks for its native tools",
			Long: `install writes into the agent's own configuration the Gatehouse MCP server
(the stdio bridge, with this binary's absolute path) and the hooks that send
the agent's native tools (shell, edits, reads) through Gatehouse. Each agent
gets its own agent token (DATA/tokens/<agent>.token), so it can be revoked
alone. Running it again changes nothing; --uninstall restores the files byte
for byte when they are as install left them, and otherwise removes only
Gatehouse's entries.

--system writes the hooks into the machine's managed settings (Claude Code
/etc/claude-code/managed-settings.json, Codex /etc/codex/requirements.toml,
Gemini CLI /etc/gemini-cli/settings.json, Cursor /etc/cursor/hooks.json),
which a repository's own settings cannot switch off. It needs root.

--confine (claude, codex, gemini) adds a launcher, DATA/shims/<agent>: a
script named like the agent that starts it with ` + "`gatehouse run <agent>`" + `,
confined for its whole life. Typing the agent's name runs it once
DATA/shims comes first on your PATH; install prints the line to add to
your shell's startup file and never edits it. --uninstall removes the
launcher too; --uninstall --confine removes only the launcher.`,
			Args: func(_ *cobra.Command, args []string) error {
				if len(args) != 1 {
					return userErrorf(nil, "name one agent: gatehouse install claude|codex|gemini|cursor")
				}
				return nil
			},
			RunE: func(cmd *cobra.Command, args []string) error {
				if confine {
					if err := confinable(args[0], system); err != nil {
						return err
					}
				}
				return runInstall(cmd.Context(), g, args[0], installOpts{uninstall: uninstall, system: system, confine: confine})
			},
		}
		cmd.Flags().BoolVar(&uninstall, "uninstall", false, "remove Gatehouse from the agent's config instead")
		cmd.Flags().BoolVar(&system, "system", false, "use the machine's managed settings, which repositories cannot override (needs root)")
		cmd.Flags().BoolVar(&confine, "confine", false, "also add a launcher, so that typing the agent's name starts it confined (gatehouse run)")
		return cmd
	})
}

// selfBinary is the absolute, symlink-free path of the running binary: the
// agent's config must keep working whatever PATH the agent has.
func selfBinary() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find this binary: %w", err)
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	return filepath.Abs(exe)
}

// hookBinary is what the agent's hooks run: the stand-alone helper when
// it is installed beside bin (every tool call starts it, and it starts in
// a millisecond where gatehouse takes five), else bin itself.
func hookBinary(bin string) string {
	h, err := launch.DefaultHelper()
	if err == nil {
		h, err = filepath.EvalSymlinks(h)
	}
	if err != nil || filepath.Dir(h) != filepath.Dir(bin) {
		return ""
	}
	return h
}

// installOpts are install's flags.
type installOpts struct {
	uninstall, system, confine bool
}

func runInstall(ctx context.Context, g *Globals, name string, o installOpts) error {
	a, err := agentconfig.ParseAgent(name)
	if err != nil {
		return userErrorf(err, "%v", err)
	}
	scope := agentconfig.User
	if o.system {
		scope = agentconfig.System
	}
	dir, err := dataDir(g, "")
	if err != nil {
		return err
	}
	if o.uninstall {
		return runUninstall(ctx, g, a, scope, dir, o.confine)
	}
	if err := wireAgent(ctx, g, a, scope, dir, false); err != nil {
		return err
	}
	if o.confine {
		return installLauncher(g.Stdout, dir, name)
	}
	if _, ok := agentprofile.Lookup(name); ok && !o.system {
		fmt.Fprintf(g.Stdout, "To have typing %s start it confined for its whole life, run: gatehouse install %s --confine\n", name, name)
	}
	return nil
}

// runUninstall takes Gatehouse out of the agent's config and removes its
// launcher (a --system uninstall leaves the person's launcher be); with
// onlyLauncher, the launcher alone. Either found is enough.
func runUninstall(ctx context.Context, g *Globals, a agentconfig.Agent, scope agentconfig.Scope, dir string, onlyLauncher bool) error {
	removed := false
	if scope == agentconfig.User {
		var err error
		if removed, err = removeLauncher(g.Stdout, dir, string(a)); err != nil {
			return err
		}
	}
	if onlyLauncher {
		if !removed {
			return userErrorf(nil, "there is no launcher for %s in %s; nothing was changed", a, launcher.Dir(dir))
		}
		return nil
	}
	err := wireAgent(ctx, g, a, scope, dir, true)
	if removed && errors.Is(err, agentconfig.ErrNotInstalled) {
		return nil // the launcher was all there was
	}
	return err
}

// wireAgent writes (or, with uninstall, removes) Gatehouse's entries in the
// agent's config.
func wireAgent(ctx context.Context, g *Globals, a agentconfig.Agent, scope agentconfig.Scope, dir string, uninstall bool) error {
	env, err := agentconfig.FromOS()
	if err != nil {
		return err
	}
	in := agentconfig.Installer{Env: env, DataDir: dir}
	var res agentconfig.Result
	if uninstall {
		res, err = in.Unwire(a, scope)
	} else {
		var bin string
		if bin, err = selfBinary(); err != nil {
			return err
		}
		res, err = in.Wire(a, scope, agentconfig.Wiring{Binary: bin, Hook: hookBinary(bin), DataDir: dir})
	}
	if errors.Is(err, agentconfig.ErrNotInstalled) {
		return userErrorf(err, "Gatehouse is not installed for %s (%s); nothing was changed", a.Title(), scope)
	}
	var ref *agentconfig.Refusal
	if errors.As(err, &ref) {
		return userErrorf(err, "%s", ref.Msg)
	}
	if err != nil {
		return err
	}
	printInstall(g.Stdout, res, uninstall)
	syncDaemonTokens(ctx, g, dir)
	return nil
}

func printInstall(w io.Writer, res agentconfig.Result, uninstall bool) {
	who := fmt.Sprintf("%s (%s)", res.Agent.Title(), res.Scope)
	if !res.Changed() {
		fmt.Fprintf(w, "Gatehouse is already installed for %s; nothing changed.\n", who)
		return
	}
	for _, c := range res.Changes {
		if c.Outcome != agentconfig.Unchanged {
			fmt.Fprintf(w, "  %-9s %s\n", c.Outcome, c.Path)
		}
	}
	var edited []string
	for _, c := range res.Changes {
		if c.Outcome == agentconfig.Stripped {
			edited = append(edited, c.Path)
		}
	}
	switch {
	case uninstall && len(edited) > 0:
		fmt.Fprintf(w, "Removed Gatehouse from %s. %s changed since install, so only Gatehouse's entries were taken out of it.\n", who, strings.Join(edited, " and "))
	case uninstall:
		fmt.Fprintf(w, "Removed Gatehouse from %s; its files are as they were before install.\n", who)
	default:
		fmt.Fprintf(w, "Wired Gatehouse into %s; start a new %s session to load it.\n", who, res.Agent.Title())
		if res.Agent == agentconfig.Codex {
			fmt.Fprint(w, codexSandboxNote)
		}
	}
}

const codexSandboxNote = "Codex runs each shell command Gatehouse hands it inside Codex's own sandbox, which by default\n" +
	"cannot connect to Gatehouse. To let Codex's own shell work, set in Codex's config.toml\n  " + agentconn.CodexSandboxSettings + ".\n" +
	"Each command still runs in Gatehouse's sandbox, with no network unless you approve a domain.\n"

// syncDaemonTokens asks a running daemon to register (or revoke) the agent
// token files now; a stopped daemon does it when it starts.
func syncDaemonTokens(ctx context.Context, g *Globals, dir string) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	err := client.New(dir).Post(ctx, "/api/v1/agents/sync", nil, nil)
	if err != nil && !errors.Is(err, client.ErrNoDaemon) {
		fmt.Fprintf(g.Stderr, "gatehouse: the running daemon could not reload the agent tokens (%v); restart it to pick up the change.\n", apiErr(err))
	}
}
