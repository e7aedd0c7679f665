package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gatehouse-dev/gatehouse/backend/agentprofile"
	"github.com/gatehouse-dev/gatehouse/backend/atomicfile"
	"github.com/gatehouse-dev/gatehouse/backend/config"
	"github.com/gatehouse-dev/gatehouse/backend/datadir"
	"github.com/gatehouse-dev/gatehouse/backend/projects"
	"github.com/gatehouse-dev/gatehouse/backend/secrets"
	"github.com/gatehouse-dev/gatehouse/backend/transport/hookserver"
	"github.com/gatehouse-dev/gatehouse/sandbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/agentbox"
	"github.com/gatehouse-dev/gatehouse/sandbox/initproc"
	"github.com/gatehouse-dev/gatehouse/sandbox/landlock"
	"github.com/gatehouse-dev/gatehouse/sandbox/launch"
	"github.com/gatehouse-dev/gatehouse/sandbox/protect"
)

// What a confined run shows its agent, worked out on the person's side
// (the daemon opened the run's session and knows its workspace).

// runLayout is what confinedSpec needs.
type runLayout struct {
	dataDir    string
	cfg        config.Config
	profile    *agentprofile.Resolved // nil for a plain command
	program    string                 // the agent's program, resolved on PATH
	argv       []string
	cwd        string
	workspaces []string
	// gitDirs are the git dirs beside the workspaces (Started.GitDirs).
	gitDirs    []string
	runID      string
	agentPort  int
	toolchains []string
	// early is the sandbox started while the daemon opened the run, if
	// any (agentbox.Prepare).
	early *agentbox.Early
	// dirs are the directories the agent's own flags name besides its
	// project (namedDirs); those that may be are asked for as workspaces.
	dirs []string
	// tmp is the session's temporary directory (Started.Tmp), "" for one
	// of the run's own.
	tmp string
	// nodeOptions is what a plain command's Node loads first
	// (toolchain.NodeQuiet), "" for nothing.
	nodeOptions string
	// notices is where what the person should know before the run starts
	// is written; nil for the run's stderr.
	notices io.Writer
}

// firstProcess is the sandbox's first process: the small stand-alone
// helper when it is installed beside this binary (a start of this one
// costs several milliseconds more, about 100 for the desktop build).
// This binary is shown all the same, for the agent's hooks and
// `gatehouse exec`.
func firstProcess() (string, error) {
	first, err := launch.DefaultHelper()
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(first); err == nil {
		first = real
	}
	return first, nil
}

// confinedSpec lays out the sandbox for l.
func confinedSpec(l runLayout) (agentbox.Spec, error) {
	ctr, err := runContainer(l.cfg.Sandbox, l.runID)
	if err != nil {
		return agentbox.Spec{}, err
	}
	var bw string
	var onLandlock bool
	if ctr == nil {
		if bw, onLandlock, err = runBackend(l.cfg.Sandbox.Backend); err != nil {
			return agentbox.Spec{}, err
		}
	}
	self, err := os.Executable()
	if err != nil {
		return agentbox.Spec{}, err
	}
	if real, err := filepath.EvalSymlinks(self); err == nil {
		self = real
	}
	first, err := firstProcess()
	if err != nil {
		return agentbox.Spec{}, err
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return agentbox.Spec{}, userErrorf(err, "cannot find your home directory: %v", err)
	}
	real, install, err := agentInstall(l.program)
	if err != nil {
		return agentbox.Spec{}, err
	}
	s := agentbox.Spec{
		Bwrap: bw, Landlock: onLandlock, Container: ctr, Init: first, Early: l.early, Argv: append([]string{real}, l.argv[1:]...), Dir: l.cwd, Home: home,
		Workspaces: l.workspaces, AgentPort: l.agentPort, Programs: []string{self},
		Info:     agentbox.RunInfo{Run: l.runID, AgentAddr: fmt.Sprintf("127.0.0.1:%d", l.agentPort)},
		Shown:    []string{runRedacted(l.dataDir, l.runID)},
		ReadOnly: dedupe(append(append([]string(nil), l.toolchains...), install...)),
		Hidden:   slices.Concat([]string{l.dataDir}, sandbox.SensitiveSystemFiles(), sandbox.HomeCredentials(home)),
		Stdin:    os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		Tmp: l.tmp,
	}
	tell := l.notices
	if tell == nil {
		tell = s.Stderr
	}
	if err := os.MkdirAll(runRedacted(l.dataDir, l.runID), 0o700); err != nil {
		return s, fmt.Errorf("make the run's directory of redacted copies: %w", err)
	}
	exposure, err := protect.ParseExposure(l.cfg.Sandbox.ExposeSecrets)
	if err != nil {
		return s, err
	}
	locked := map[string]landlock.Lock{}
	for _, ws := range l.workspaces {
		if p := l.profile; p != nil {
			// Not made, the agent's own sandbox fails as it did before
			// they were: the run goes on.
			made, err := makeProjectDirs(ws, p.ProjectDirs)
			if err != nil {
				fmt.Fprintf(tell, "gatehouse: %s's own sandbox may not start: could not %v\n", p.Name, err)
			}
			if len(made) > 0 {
				stays := "it stays"
				if len(made) > 1 {
					stays = "they stay"
				}
				fmt.Fprintf(tell, "gatehouse: made an empty %s in %s, as %s does, so %s read-only in the run\n", strings.Join(made, " and an empty "), ws, p.Name, stays)
			}
		}
		w, err := protect.Scan(ws, exposure)
		if err != nil {
			return s, userErrorf(err, "Gatehouse could not read what to protect in %s, so nothing was started: %v", ws, err)
		}
		s.Protected = append(s.Protected, w.Protected.Existing...)
		s.Uncreatable = append(s.Uncreatable, w.Protected.Missing...)
		s.Pin = append(s.Pin, w.ProtectedParents()...)
		s.Hidden = append(s.Hidden, w.Hidden()...)
		if onLandlock {
			maps.Copy(locked, landlock.LockedDirs(w))
		}
	}
	// A linked worktree's or a submodule's history lives beside it:
	// without it, the agent's git finds no repository at all. The daemon
	// names them, as its checkpoints hold them.
	s.ReadWrite = append(s.ReadWrite, l.gitDirs...)
	if onLandlock {
		for _, g := range l.gitDirs {
			// Nothing new can be made directly in it (its config and hooks
			// stay read-only), and a bare repository has no logs/ yet,
			// where a commit's reflog goes: made now, as git would.
			if made, err := makeProjectDirs(g, []string{"logs"}); err == nil && len(made) > 0 {
				fmt.Fprintf(tell, "gatehouse: made an empty logs in %s, where git keeps its reflogs, so that the agent's commits work on Landlock\n", g)
			}
		}
	}
	if p := l.profile; p != nil {
		if err := agentHome(l.dataDir, home, p, &s); err != nil {
			return s, err
		}
	}
	s.Env = confinedEnv(os.Environ(), home, l)
	keepLinks(&s)
	// Once the layout stands: a run that cannot start says only why.
	if n := landlockNotice(l.workspaces, locked); n != "" {
		fmt.Fprintln(tell, n)
	}
	if n := outsideDirsNotice(l); n != "" {
		fmt.Fprintln(tell, n)
	}
	if sandbox.HomeGitBool(home, "commit.gpgsign") {
		// The key stays hidden: the agent's own commits fail, and git's
		// error alone would not say why.
		fmt.Fprintln(tell, "gatehouse: your git config signs every commit (commit.gpgsign) with a key the run hides, so a commit the agent makes itself fails; it can make one unsigned (git commit --no-gpg-sign) for you to sign later")
	}
	return s, nil
}

// runBackend is what confines a run: bubblewrap (its path), or Landlock
// when the sandbox backend is landlock, or auto on a machine without
// bubblewrap, as for commands (sandbox/choose). Other backends have no
// whole-agent mode of their own: bubblewrap confines the run.
func runBackend(name string) (bwrap string, onLandlock bool, err error) {
	if name == landlock.Name {
		return "", true, nil
	}
	bw, err := exec.LookPath("bwrap")
	if err == nil {
		return bw, false, nil
	}
	if name == "" || name == "auto" {
		if initproc.ABI() >= 4 {
			return "", true, nil
		}
	}
	return "", false, userErrorf(err, "bubblewrap (bwrap) is not installed, and `gatehouse run` confines agents with it (or with Landlock, on Linux 6.7 or later); install it (Debian: apt install bubblewrap)")
}

// agentHome gives a profile's agent a home of its own in the data dir
// (what it keeps in $HOME, seeded from the person's), its state directory
// read-write and its settings read-only. A settings name that does not
// exist is made first (an empty directory, or a file with neutral
// content), so the agent cannot create it either.
func agentHome(dataDir, home string, p *agentprofile.Resolved, s *agentbox.Spec) error {
	s.HomeDir = filepath.Join(dataDir, "agents", p.Name, "home")
	if s.Landlock {
		// Nothing is mounted: the agent is told this home, where a link
		// leads to its state directory in the real one. A home of its
		// own, as bubblewrap mounts the state directory over the other.
		s.HomeDir = filepath.Join(dataDir, "agents", p.Name, "landlock-home")
	}
	if err := os.MkdirAll(s.HomeDir, 0o700); err != nil {
		return fmt.Errorf("make %s's home: %w", p.Name, err)
	}
	for _, real := range p.Seed {
		own := filepath.Join(s.HomeDir, strings.TrimPrefix(real, home+string(filepath.Separator)))
		if _, err := os.Lstat(own); err == nil {
			continue // its own copy lives on
		}
		if err := copyFile(real, own); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("seed %s's %s: %w", p.Name, filepath.Base(real), err)
		}
	}
	if err := os.MkdirAll(p.State, 0o700); err != nil {
		return fmt.Errorf("make %s's state directory %s: %w", p.Name, p.State, err)
	}
	if rel, err := filepath.Rel(home, p.State); s.Landlock && err == nil && filepath.IsLocal(rel) {
		if err := linkState(filepath.Join(s.HomeDir, rel), p.State); err != nil {
			return fmt.Errorf("lead %s's home to its state directory %s: %w", p.Name, p.State, err)
		}
	}
	s.ReadWrite = append(s.ReadWrite, p.State)
	for i, c := range p.Config {
		path := p.ConfigPaths[i]
		if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
			if c.Dir {
				err = os.Mkdir(path, 0o700)
			} else {
				err = atomicfile.Write(path, []byte(c.Empty), 0o600)
			}
			if err != nil {
				return fmt.Errorf("make %s's %s (kept read-only in the run): %w", p.Name, path, err)
			}
		}
		if s.Landlock && p.MakesInState {
			s.Guarded = append(s.Guarded, path)
			continue
		}
		s.ReadOnlyOver = append(s.ReadOnlyOver, path)
	}
	return nil
}

// linkState makes link lead to state, unless something of the agent's is
// there already. Landlock judges what a path resolves to, so the link
// opens nothing the rules do not grant.
func linkState(link, state string) error {
	if _, err := os.Lstat(link); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
		return err
	}
	return os.Symlink(state, link)
}

// agentInstall resolves the agent's program to its real file and lists
// what must be visible for it to run: its package (a whole node_modules
// for an npm install), and the interpreter its first line names.
func agentInstall(program string) (real string, show []string, err error) {
	real, err = filepath.EvalSymlinks(program)
	if err != nil {
		return "", nil, userErrorf(err, "%s cannot be resolved: %v", program, err)
	}
	show = append(show, packageRoot(real))
	if interp := interpreter(real); interp != "" {
		if p, err := exec.LookPath(interp); err == nil {
			if r, err := filepath.EvalSymlinks(p); err == nil {
				show = append(show, filepath.Dir(r))
			}
		}
	}
	return real, show, nil
}

// packageRoot is the outermost node_modules holding path (its
// dependencies live beside it), or path's directory.
func packageRoot(path string) string {
	if i := strings.Index(path, "/node_modules/"); i >= 0 {
		return path[:i+len("/node_modules")]
	}
	return filepath.Dir(path)
}

// interpreter is the program a script's "#!" line runs ("node" for
// "#!/usr/bin/env node"), "" for a binary.
func interpreter(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := bufio.NewReader(io.LimitReader(f, 256)).ReadString('\n')
	if !strings.HasPrefix(line, "#!") {
		return ""
	}
	fields := strings.Fields(strings.TrimPrefix(line, "#!"))
	if len(fields) == 0 {
		return ""
	}
	if filepath.Base(fields[0]) == "env" {
		for _, f := range fields[1:] {
			if !strings.HasPrefix(f, "-") {
				return f
			}
		}
		return ""
	}
	return fields[0]
}

// confinedEnv is the agent's environment: the person's, less Gatehouse's own
// variables and those that look secret by name or hold a URL with a
// password (DATABASE_URL), unless the profile or [agents.NAME] env names
// them, with HOME, the proxy and the way to the daemon's agent routes set.
func confinedEnv(environ []string, home string, l runLayout) []string {
	var keep []string
	if l.profile != nil {
		keep = l.cfg.Agents[l.profile.Name].Env
	}
	out := make([]string, 0, len(environ)+8)
	for _, e := range environ {
		k, v, _ := strings.Cut(e, "=")
		switch {
		case strings.HasPrefix(k, "GATEHOUSE_"), k == "HOME":
		case (secrets.LooksSecret(k) || secrets.ValueLooksSecret(v)) && !slices.Contains(keep, k) && (l.profile == nil || !l.profile.Passes(k)):
		default:
			out = append(out, e)
		}
	}
	out = append(out, "HOME="+home, "GATEHOUSE_RUN="+l.runID,
		fmt.Sprintf("GATEHOUSE_AGENT_ADDR=127.0.0.1:%d", l.agentPort))
	// Git in the run looks past the hidden secrets' stand-ins, as in a
	// command's own sandbox.
	env := sandbox.ProxyEnv(append(out, sandbox.GitCoherentEnv...), agentbox.ProxyAddr)
	if l.profile == nil {
		return withNodeOptions(env, l.nodeOptions)
	}
	// Not an agent's own: Claude Code and Gemini CLI set up their proxy
	// themselves, and Node would print a warning that it is experimental
	// into the agent's screen. Its commands, in sandboxes of their own,
	// get it, and so does a plain command run confined.
	return slices.DeleteFunc(env, func(e string) bool { return strings.HasPrefix(e, sandbox.NodeEnvProxy+"=") })
}

// withNodeOptions adds opts to env's NODE_OPTIONS, after the person's own.
func withNodeOptions(env []string, opts string) []string {
	if opts == "" {
		return env
	}
	for i, e := range env {
		if v, ok := strings.CutPrefix(e, "NODE_OPTIONS="); ok {
			env[i] = strings.TrimSpace("NODE_OPTIONS=" + v + " " + opts)
			return env
		}
	}
	return append(env, "NODE_OPTIONS="+opts)
}

// runRedacted is the run's own directory of redacted copies (the daemon
// writes them there for its agent's reads; see hookserver.readAnswer),
// made now so it can be shown inside.
func runRedacted(dataDir, run string) string {
	return hookserver.ConfinedRedacted(filepath.Join(dataDir, datadir.RedactedDir), run)
}

func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(dst, b, 0o600)
}

func dedupe(in []string) []string {
	slices.Sort(in)
	return slices.Compact(in)
}

// keepLinks keeps each protected name that is a symbolic link (.claude ->
// cfg/claude, .envrc -> somewhere) as a command's sandbox keeps it: the
// name is made uncreatable, so once the agent removes the link it cannot
// put a file or directory of its own there, and what the link leads to
// stays read-only only where the run shows it anyway (a workspace, the
// agent's state, a read-only tree). Elsewhere nothing of it is shown:
// keeping it read-only would bind it into the sandbox, showing the agent
// a file of the person's that the project merely points at (a hostile
// repository's .envrc -> ~/.ssh/id_ed25519).
func keepLinks(s *agentbox.Spec) {
	shown := slices.Concat(s.Workspaces, s.ReadWrite, s.ReadOnly)
	kept := s.Protected[:0:0]
	for _, p := range s.Protected {
		if st, err := os.Lstat(p); err != nil || st.Mode()&os.ModeSymlink == 0 {
			kept = append(kept, p)
			continue
		}
		s.Uncreatable = append(s.Uncreatable, p)
		if t, err := filepath.EvalSymlinks(p); err == nil && slices.ContainsFunc(shown, func(root string) bool { return within(t, root) }) {
			kept = append(kept, p)
		}
	}
	s.Protected = kept
}

// namedDirs are the existing directories argv's own flags name for the
// agent to work in besides its project (claude --add-dir, codex -C), as
// absolute real paths: the run asks for them as workspaces too.
func namedDirs(p agentprofile.Profile, argv []string, cwd string) []string {
	if len(argv) == 0 || filepath.Base(argv[0]) != p.Binary {
		return nil
	}
	var out []string
	for _, d := range p.NamedDirs(argv[1:]) {
		if !filepath.IsAbs(d) {
			d = filepath.Join(cwd, d)
		}
		real, err := filepath.EvalSymlinks(d)
		if st, serr := os.Stat(real); err != nil || serr != nil || !st.IsDir() {
			continue // not a directory here: the agent says so itself
		}
		if !slices.Contains(out, real) {
			out = append(out, real)
		}
	}
	return out
}

// askableDirs are those of dirs whose projects may be workspaces at all:
// never your home or what holds it, nor a place of it that holds
// credentials (projects.Refuse, as the daemon checks with its own home).
func askableDirs(dirs []string, home, dataDir string) []string {
	var out []string
	for _, d := range dirs {
		if p, err := projects.Of(d, home); err == nil && projects.Refuse(p, home, dataDir) == nil {
			out = append(out, d)
		}
	}
	return out
}

// outsideDirsNotice says which directories the agent's own flags name to
// work in that the run does not show after all (the person refused one,
// or it cannot be a workspace): the agent would find them missing or
// read-only and not know why. Empty when there are none.
func outsideDirsNotice(l runLayout) string {
	var outside []string
	for _, d := range l.dirs {
		if !slices.ContainsFunc(l.workspaces, func(w string) bool { return sandbox.Within(d, w) }) {
			outside = append(outside, d)
		}
	}
	if len(outside) == 0 {
		return ""
	}
	return fmt.Sprintf("gatehouse: %s will not see %s: the run shows only its workspaces, %s (a directory outside them needs your allow, and none may hold another)",
		filepath.Base(l.argv[0]), strings.Join(outside, ", "), strings.Join(l.workspaces, ", "))
}
